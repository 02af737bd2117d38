"""Errors of the WebSocket API: an `error` frame (`{"code", "message"}`) for a frame that
failed, or an HTTP response refusing the upgrade.

    WsError(code, message, http_status)

The core's errors and authentication errors become WsErrors in `from_core`, with the
native APIs' status of their kind (gateway/native/errors.py), which matters only when the
upgrade itself is refused (401 for credentials, 503 when they cannot be checked).
"""

from __future__ import annotations

from gateway.auth.errors import AuthError
from gateway.core.errors import CoreError
from gateway.native.errors import HTTP_STATUS_BY_KIND


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
    return WsError(exc.code, exc.message, HTTP_STATUS_BY_KIND[exc.kind])
