"""Errors of the REST API, as the wire shows them: `{"error": {"code", "message"}}`.

    RestError           400  bad input: a malformed body or parameter, a value out of range
     +-- Unauthorized   401  no credentials, or credentials that prove nothing
     +-- Forbidden      403  a quota reached: the queue has its most messages in flight
     +-- NotFound       404  an unknown queue or message move task (also another account's)
     +-- Conflict       409  the state forbids it: name taken, recently deleted, purged
     |                       within the minute, a move task already running or finished
     +-- TooLarge       413  a request body, a message or a batch over its limit
     +-- Unavailable    503  the control plane cannot be reached

Codes are the core's (gateway/core/errors.py), which are the SQS API's where it has one
(QueueDoesNotExist, InvalidParameterValue, ...), so one vocabulary serves every API. The
core's errors and authentication errors become REST errors at one boundary, `from_core`,
by one table: the native APIs' `HTTP_STATUS_BY_KIND` (gateway/native/errors.py).
"""

from __future__ import annotations

from gateway.auth.errors import AuthError
from gateway.core.errors import CoreError
from gateway.native.errors import HTTP_STATUS_BY_KIND


class RestError(Exception):
    http_status = 400

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def body(self) -> dict[str, dict[str, str]]:
        return {"error": {"code": self.code, "message": self.message}}


class Unauthorized(RestError):
    http_status = 401


class Forbidden(RestError):
    http_status = 403


class NotFound(RestError):
    http_status = 404


class Conflict(RestError):
    http_status = 409


class TooLarge(RestError):
    http_status = 413


class Unavailable(RestError):
    http_status = 503


class InternalError(RestError):
    http_status = 500


_BY_STATUS: dict[int, type[RestError]] = {
    cls.http_status: cls
    for cls in (
        RestError,
        Unauthorized,
        Forbidden,
        NotFound,
        Conflict,
        TooLarge,
        Unavailable,
        InternalError,
    )
}


def with_status(http_status: int, code: str, message: str) -> RestError:
    return _BY_STATUS.get(http_status, InternalError)(code, message)


def from_core(exc: CoreError | AuthError) -> RestError:
    """The REST form of an error of the core or of authentication."""
    if isinstance(exc, AuthError):
        return Unauthorized(exc.code, str(exc))
    return with_status(HTTP_STATUS_BY_KIND[exc.kind], exc.code, exc.message)


def not_found_queue() -> NotFound:
    return NotFound("QueueDoesNotExist", "The specified queue does not exist.")
