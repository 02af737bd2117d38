"""The HTTP status of each kind of core error, on the native APIs: the REST API answers
with it, and the WebSocket API refuses an upgrade with it. Both write the error itself as
`{"error": {"code", "message"}}` (gateway/native/common.py)."""

from __future__ import annotations

from gateway.core.errors import ErrorKind

HTTP_STATUS_BY_KIND = {
    ErrorKind.INVALID: 400,
    ErrorKind.UNAUTHORIZED: 401,
    ErrorKind.FORBIDDEN: 403,
    ErrorKind.NOT_FOUND: 404,
    ErrorKind.CONFLICT: 409,
    ErrorKind.TOO_LARGE: 413,
    ErrorKind.UNAVAILABLE: 503,
    ErrorKind.INTERNAL: 500,
}
