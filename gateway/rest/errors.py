"""Errors of the REST API, as the wire shows them: `{"error": {"code", "message"}}`.

    RestError           400  bad input: a malformed body or parameter, a value out of range
     +-- Unauthorized   401  no credentials, or credentials that prove nothing
     +-- Forbidden      403  a quota reached: the queue has its most messages in flight
     +-- NotFound       404  an unknown queue or message move task (also another account's)
     +-- Conflict       409  the state forbids it: name taken, recently deleted, purged
     |                       within the minute, a move task already running or finished
     +-- TooLarge       413  a request body, a message or a batch over its limit
     +-- Unavailable    503  the control plane cannot be reached

Codes are the SQS API's where it has one (QueueDoesNotExist, InvalidParameterValue, ...),
so one vocabulary serves both APIs. Errors of the shared layers (control plane, SQS
validation helpers, SigV4 authentication) are translated here, at the one boundary
`from_foreign`: their `sqs_code` picks the code, and the REST status comes from the
code's row in `_STATUS_BY_CODE`, else from the error's own `http_status`.
"""

from __future__ import annotations

from control_plane.errors import ControlPlaneError
from gateway.auth.errors import AuthError
from gateway.sqs.errors import SqsError

_STATUS_BY_CODE = {
    "QueueDoesNotExist": 404,
    "ResourceNotFoundException": 404,
    "QueueNameExists": 409,
    "QueueDeletedRecently": 409,
    "PurgeQueueInProgress": 409,
    "BatchRequestTooLong": 413,
    "OverLimit": 403,
}


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


def from_foreign(exc: ControlPlaneError | SqsError | AuthError) -> RestError:
    """The REST form of an error raised by a layer the REST API shares with the others."""
    if isinstance(exc, AuthError):
        return Unauthorized(exc.sqs_code, str(exc))
    if isinstance(exc, SqsError):
        code, message = exc.code, exc.message
    else:
        code, message = exc.sqs_code, str(exc)
    if exc.http_status >= 500:
        # A fault of ours or of Redis, never of the caller: keep its own status.
        return with_status(exc.http_status, code, message)
    return with_status(_STATUS_BY_CODE.get(code, 400), code, message)


def not_found_queue() -> NotFound:
    return NotFound("QueueDoesNotExist", "The specified queue does not exist.")
