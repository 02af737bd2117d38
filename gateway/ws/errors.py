"""Errors of the WebSocket API: an `error` frame (`{"code", "message"}`) for a frame that
failed, or an HTTP response refusing the upgrade.

    WsError(code, message, http_status)

The core's errors and authentication errors become WsErrors in `from_core`, by this
protocol's one table, `_UPGRADE_STATUS_BY_KIND`: the status matters only when the
upgrade itself is refused (401 for credentials, 503 when they cannot be checked).
"""

from __future__ import annotations

from gateway.auth.errors import AuthError
from gateway.core.errors import CoreError, ErrorKind

_UPGRADE_STATUS_BY_KIND = {
    ErrorKind.INVALID: 400,
    ErrorKind.UNAUTHORIZED: 401,
    ErrorKind.FORBIDDEN: 403,
    ErrorKind.NOT_FOUND: 404,
    ErrorKind.CONFLICT: 409,
    ErrorKind.TOO_LARGE: 413,
    ErrorKind.UNAVAILABLE: 503,
    ErrorKind.INTERNAL: 500,
}


class WsError(Exception):
    def __init__(self, code: str, message: str, http_status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.http_status = http_status


def unauthorized(code: str, message: str) -> WsError:
    return WsError(code, message, 401)


def from_core(exc: CoreError | AuthError) -> WsError:
    """The WebSocket form of an error of the core or of authentication."""
    if isinstance(exc, AuthError):
        return unauthorized(exc.code, str(exc))
    return WsError(exc.code, exc.message, _UPGRADE_STATUS_BY_KIND[exc.kind])
