"""SNS errors as the wire shows them.

    SnsError                    code, message, HTTP status, sender fault

The core's errors (gateway/core/errors.py) become SnsErrors in `from_core`, by the one
table of this protocol, `_STATUS_BY_KIND`; authentication errors (gateway/auth/errors.py)
keep their codes and their status, 403.

An error is written as SNS's XML (gateway/sns/query_protocol.py): `<Type>Sender</Type>`
(or `Receiver` for a fault of the service), the code, the message. botocore picks the
exception class by the code (`NotFound` -> `NotFoundException`), so codes are SNS's own.
"""

from __future__ import annotations

from gateway.auth.errors import AuthError
from gateway.core.errors import CoreError, ErrorKind

# SNS answers 404 for what is not there (NotFound, ResourceNotFound), 403 for a quota
# reached (TopicLimitExceeded, SubscriptionLimitExceeded, ...) and for AuthorizationError,
# and 400 for every other refusal: the statuses botocore's SNS model records for them.
_STATUS_BY_KIND = {
    ErrorKind.INVALID: 400,
    ErrorKind.NOT_FOUND: 404,
    ErrorKind.CONFLICT: 400,
    ErrorKind.TOO_LARGE: 400,
    ErrorKind.FORBIDDEN: 403,
    ErrorKind.UNAUTHORIZED: 403,
    ErrorKind.UNAVAILABLE: 503,
    ErrorKind.INTERNAL: 500,
}


class SnsError(Exception):
    def __init__(
        self, code: str, message: str, *, http_status: int = 400, sender_fault: bool = True
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.http_status = http_status
        self.sender_fault = sender_fault

    @property
    def fault(self) -> str:
        """The error's `<Type>`: whose fault it is."""
        return "Sender" if self.sender_fault else "Receiver"


def from_core(exc: CoreError | AuthError) -> SnsError:
    """The SNS form of an error of the core or of authentication."""
    if isinstance(exc, AuthError):
        return SnsError(
            exc.code, str(exc), http_status=exc.http_status, sender_fault=exc.sender_fault
        )
    return SnsError(
        exc.code,
        exc.message,
        http_status=_STATUS_BY_KIND[exc.kind],
        sender_fault=exc.sender_fault,
    )


def internal_error() -> SnsError:
    return SnsError(
        "InternalError",
        "We encountered an internal error. Please try again.",
        http_status=500,
        sender_fault=False,
    )


def invalid_parameter(detail: str) -> SnsError:
    """SNS's refusal of a parameter: `Invalid parameter: <name> Reason: <why>`."""
    return SnsError("InvalidParameter", f"Invalid parameter: {detail}")


def missing_parameter(name: str) -> SnsError:
    return invalid_parameter(f"{name} Reason: no value for required parameter")
