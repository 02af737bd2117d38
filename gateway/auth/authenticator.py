"""Who sent a request: its SigV4 signature checked against the registered access keys.

The composition root builds one `Authenticator` per gateway and keeps it as
`app.state.authenticator`; endpoints call `authenticate(request, body, service=...)`
first, with the body they read once (the signature covers it) and the service their
credential scope must name (`sqs`, `sns`). Keys are read from the control plane on
every request, so a key revoked on any gateway is refused by all of them at once.
"""

from __future__ import annotations

import hmac
import logging
from dataclasses import dataclass

from starlette.requests import Request

from control_plane.access_keys import AccessKeys
from control_plane.clock import Clock
from control_plane.errors import ControlPlaneError, SecretUnreadable
from gateway.auth import sigv4
from gateway.auth.errors import AuthError, InvalidClientTokenId
from gateway.core.errors import from_lower_layer

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Principal:
    """The verified caller: the account its key belongs to, and the key it signed with."""

    account_id: str
    access_key_id: str


class Authenticator:
    def __init__(self, access_keys: AccessKeys, clock: Clock) -> None:
        self._keys = access_keys
        self._clock = clock

    async def authenticate(self, request: Request, body: bytes, *, service: str) -> Principal:
        """The request's principal; raises an AuthError (nothing read or changed) if the
        request is unsigned, badly signed, stale, signed for another service than
        `service`, or with an unknown key, and a CoreError if the control plane cannot
        tell."""
        key_id = None
        try:
            signed = sigv4.parse(request, self._clock.now_ms(), service=service)
            key_id = signed.credential.access_key_id
            issued = await self._keys.get(key_id)
            if issued is None:
                raise InvalidClientTokenId("The security token included in the request is invalid.")
            sigv4.verify(signed, request, body, issued.secret_access_key)
        except AuthError as exc:
            log.info("request refused (%s, key %s): %s", exc.code, key_id or "-", exc)
            raise
        except SecretUnreadable as exc:
            log.error(
                "access key %s cannot be decrypted: it was stored under another master key "
                "(TIDEMQ_MASTER_KEY or <data dir>/master.key) than this gateway's",
                key_id,
            )
            raise from_lower_layer(exc) from exc
        except ControlPlaneError as exc:
            raise from_lower_layer(exc) from exc
        return Principal(issued.key.account_id, issued.key.access_key_id)

    async def sign_in(self, access_key_id: str, secret_access_key: str) -> Principal | None:
        """The principal of a key id and its secret as a person types them (the console's
        login); None if they do not match a key."""
        try:
            issued = await self._keys.get(access_key_id)
        except ControlPlaneError as exc:  # SecretUnreadable included
            raise from_lower_layer(exc) from exc
        if issued is None or not hmac.compare_digest(
            issued.secret_access_key.encode(), secret_access_key.encode()
        ):
            log.info("console sign-in refused (key %s)", access_key_id[:40])
            return None
        return Principal(issued.key.account_id, issued.key.access_key_id)

    async def still_valid(self, principal: Principal) -> bool:
        """Whether the principal's key still exists in its account (a session made with
        a key ends when the key is revoked)."""
        try:
            issued = await self._keys.get(principal.access_key_id)
        except ControlPlaneError as exc:
            raise from_lower_layer(exc) from exc
        return issued is not None and issued.key.account_id == principal.account_id


async def authenticate(request: Request, body: bytes, *, service: str) -> Principal:
    """Authenticates with the app's authenticator; an app without one refuses to serve."""
    authenticator: Authenticator = request.app.state.authenticator
    return await authenticator.authenticate(request, body, service=service)
