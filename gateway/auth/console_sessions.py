"""Console sessions: who is signed in to `/console`, carried in a signed cookie, and the
CSRF tokens that every change made from the console must carry.

A person signs in with an access key id and its secret (gateway/auth/authenticator.py
`sign_in`); the session is then a cookie, `HttpOnly`, `SameSite=Strict`, `Path=/console`
(and `Secure` over HTTPS), whose value names the account and the key and when it
expires, MAC'd with HMAC-SHA256 under a key derived from the deployment's master key,
so every gateway of a deployment accepts it and nothing is stored. Each request also
checks that the key still exists: revoking a key ends its sessions everywhere at once.
Signing out clears the cookie; a copy of it taken before stays good until it expires
(SESSION_TTL_MS), unless its key is revoked.

CSRF: every form that changes something carries `csrf`, an HMAC of the session's cookie
under the same key (the synchronizer-token pattern without server state). A request
without the session, or whose token does not match it, changes nothing. SameSite=Strict
already keeps other sites' requests from carrying the cookie; the token is the second
lock.

Cookie value: base64url(`<account>:<key id>:<expires ms>:<nonce>`) `.` base64url(MAC).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from dataclasses import dataclass

from control_plane.clock import Clock
from gateway.auth.authenticator import Principal

COOKIE = "tidemq_console"
COOKIE_PATH = "/console"
SESSION_TTL_MS = 12 * 3600 * 1000
_KEY_LABEL = b"tidemq console sessions v1"


@dataclass(frozen=True, slots=True)
class Session:
    principal: Principal
    expires_ms: int
    cookie: str  # the cookie's value, which the CSRF token is made from


class ConsoleSessions:
    def __init__(self, master_key: bytes, clock: Clock) -> None:
        # A key of its own, so that no other MAC of the deployment can pass for a session.
        self._key = hmac.new(master_key, _KEY_LABEL, hashlib.sha256).digest()
        self._clock = clock

    def issue(self, principal: Principal) -> Session:
        expires_ms = self._clock.now_ms() + SESSION_TTL_MS
        payload = ":".join(
            (principal.account_id, principal.access_key_id, str(expires_ms), secrets.token_hex(8))
        ).encode()
        cookie = f"{_b64(payload)}.{_b64(self._mac(b'session', payload))}"
        return Session(principal, expires_ms, cookie)

    def verify(self, cookie: str | None) -> Session | None:
        """The session the cookie carries; None if it is missing, forged or expired."""
        if not cookie or cookie.count(".") != 1:
            return None
        encoded, mac = cookie.split(".")
        try:
            payload = _unb64(encoded)
            given_mac = _unb64(mac)
        except (binascii.Error, ValueError):
            return None
        if not hmac.compare_digest(given_mac, self._mac(b"session", payload)):
            return None
        parts = payload.decode(errors="replace").split(":")
        if len(parts) != 4 or not parts[2].isascii() or not parts[2].isdigit():
            return None
        account_id, key_id, expires, _nonce = parts
        if int(expires) <= self._clock.now_ms():
            return None
        return Session(Principal(account_id, key_id), int(expires), cookie)

    def csrf_token(self, session: Session) -> str:
        return _b64(self._mac(b"csrf", session.cookie.encode()))

    def csrf_ok(self, session: Session, token: str | None) -> bool:
        return token is not None and hmac.compare_digest(
            token.encode(), self.csrf_token(session).encode()
        )

    def _mac(self, purpose: bytes, payload: bytes) -> bytes:
        return hmac.new(self._key, purpose + b"\0" + payload, hashlib.sha256).digest()


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    if not text.isascii():
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
