"""Who sent a REST request: a bearer token, or an AWS Signature V4 as on the SQS API.

`Authorization: Bearer <token>` is looked up by the token's SHA-256 in the control plane
(control_plane/bearer_tokens.py) and must not have expired; any other Authorization
header is verified as SigV4 (service `sqs`) by the gateway's authenticator, over the body
read once. Either way the principal's account is the account the request acts in.
Every refusal is a 401 with a `WWW-Authenticate: Bearer` challenge, decided before
anything is read or changed. Token records are kept in the gateway's metadata cache,
which revoking invalidates on every gateway (control_plane/metadata_cache.py), so a
revoked token is refused by every gateway from the next request on.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request

from control_plane.bearer_tokens import BearerTokens
from control_plane.clock import Clock, SystemClock
from gateway.auth.authenticator import Principal, authenticate
from gateway.auth.errors import AuthError
from gateway.broker import Broker
from gateway.rest.errors import Unauthorized

log = logging.getLogger(__name__)

CHALLENGE = 'Bearer realm="tidemq"'
_BEARER = "bearer "

Lifespan = Callable[[Starlette], AbstractAsyncContextManager[Any]]


class TokenVerifier:
    """Bearer tokens checked against the control plane, their expiry against `clock`."""

    def __init__(self, tokens: BearerTokens, clock: Clock) -> None:
        self._tokens = tokens
        self._clock = clock

    async def principal(self, token: str) -> Principal:
        found = await self._tokens.find(token)
        if found is None:
            raise Unauthorized(
                "InvalidClientTokenId", "The bearer token is not valid: unknown or revoked."
            )
        if found.expired(self._clock.now_ms()):
            raise Unauthorized("ExpiredToken", "The bearer token has expired.")
        return Principal(found.account_id, f"token:{found.token_id}")


def with_token_verifier(lifespan: Lifespan, clock: Clock | None = None) -> Lifespan:
    """The app's lifespan, plus a TokenVerifier over the broker it opened
    (`app.state.token_verifier`). Token expiry is wall-clock time unless `clock` is given."""

    @asynccontextmanager
    async def wrapped(app: Starlette) -> AsyncIterator[Any]:
        async with lifespan(app) as state:
            broker: Broker = app.state.broker
            app.state.token_verifier = TokenVerifier(
                BearerTokens(
                    broker.control.redis, broker.control.clock, broker.control.metadata_cache
                ),
                clock or SystemClock(),
            )
            yield state

    return wrapped


async def authenticate_rest(request: Request, body: bytes) -> Principal:
    header = request.headers.get("authorization")
    try:
        if header is None or not header.strip():
            raise Unauthorized(
                "MissingAuthenticationToken",
                "The request needs credentials: an `Authorization: Bearer <token>` header, "
                "or an AWS Signature V4.",
            )
        if header[: len(_BEARER)].lower() == _BEARER:
            verifier: TokenVerifier = request.app.state.token_verifier
            return await verifier.principal(header[len(_BEARER) :].strip())
        try:
            return await authenticate(request, body)
        except AuthError as exc:
            raise Unauthorized(exc.sqs_code, str(exc)) from exc
    except Unauthorized as exc:
        log.info("REST request refused (%s): %s", exc.code, exc.message)
        raise
