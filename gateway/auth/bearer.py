"""Bearer tokens: `Authorization: Bearer <token>` on the REST API, and the WebSocket
API's upgrade.

A token is looked up by its SHA-256 in the control plane (control_plane/bearer_tokens.py)
and must not have expired. Token records are kept in the gateway's metadata cache, which
revoking invalidates on every gateway (control_plane/metadata_cache.py), so a revoked
token is refused by every gateway from the next request on. The composition root builds
one TokenVerifier per gateway and keeps it as `app.state.token_verifier`.
"""

from __future__ import annotations

from control_plane.bearer_tokens import BearerTokens
from control_plane.clock import Clock
from control_plane.errors import ControlPlaneError
from gateway.auth.authenticator import Principal
from gateway.auth.errors import ExpiredToken, InvalidClientTokenId
from gateway.core.errors import from_lower_layer


class TokenVerifier:
    """Bearer tokens checked against the control plane, their expiry against `clock`."""

    def __init__(self, tokens: BearerTokens, clock: Clock) -> None:
        self._tokens = tokens
        self._clock = clock

    async def principal(self, token: str) -> Principal:
        """The token's principal; an AuthError if it is unknown, revoked or expired, a
        CoreError if the control plane cannot tell."""
        try:
            found = await self._tokens.find(token)
        except ControlPlaneError as exc:
            raise from_lower_layer(exc) from exc
        if found is None:
            raise InvalidClientTokenId("The bearer token is not valid: unknown or revoked.")
        if found.expired(self._clock.now_ms()):
            raise ExpiredToken("The bearer token has expired.")
        return Principal(found.account_id, f"token:{found.token_id}")
