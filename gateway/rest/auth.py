"""Who sent a REST request: a bearer token, or an AWS Signature V4 as on the SQS API.

`Authorization: Bearer <token>` is checked by the gateway's TokenVerifier
(gateway/auth/bearer.py); any other Authorization header is verified as SigV4 (service
`sqs`) by the gateway's authenticator, over the body read once. Either way the
principal's account is the account the request acts in. Every refusal is a 401 with a
`WWW-Authenticate: Bearer` challenge, decided before anything is read or changed.
"""

from __future__ import annotations

import logging

from starlette.requests import Request

from gateway.auth.authenticator import Principal, authenticate
from gateway.auth.bearer import TokenVerifier
from gateway.auth.errors import AuthError
from gateway.rest.errors import Unauthorized, from_core

log = logging.getLogger(__name__)

CHALLENGE = 'Bearer realm="tidemq"'
_BEARER = "bearer "
# The service a SigV4 credential scope names on REST: the same as on the SQS API, so one
# signing setup serves both.
SIGV4_SERVICE = "sqs"


async def authenticate_rest(request: Request, body: bytes) -> Principal:
    header = request.headers.get("authorization")
    try:
        if header is None or not header.strip():
            raise Unauthorized(
                "MissingAuthenticationToken",
                "The request needs credentials: an `Authorization: Bearer <token>` header, "
                "or an AWS Signature V4.",
            )
        try:
            if header[: len(_BEARER)].lower() == _BEARER:
                verifier: TokenVerifier = request.app.state.token_verifier
                return await verifier.principal(header[len(_BEARER) :].strip())
            return await authenticate(request, body, service=SIGV4_SERVICE)
        except AuthError as exc:
            raise from_core(exc) from exc
    except Unauthorized as exc:
        log.info("REST request refused (%s): %s", exc.code, exc.message)
        raise
