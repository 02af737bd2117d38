"""SQS errors as the wire shows them.

    SqsError                    code, message, HTTP status, sender fault

The core's errors (gateway/core/errors.py) become SqsErrors in `from_core`, by the one
table of this protocol, `_STATUS_BY_KIND`; so do authentication errors, all 403.

A JSON 1.0 error body is `{"__type": "com.amazonaws.sqs#<Code>", "message": "..."}` (for
the two codes SQS's model has no shape for, the framework exception AWS names instead),
and the `x-amzn-query-error` header carries the code the older Query API used (AWS sends
both; botocore reports the Query code in `Error.Code`, the `__type` in
`Error.QueryErrorCode`, and picks the exception class by name).
"""

from __future__ import annotations

from gateway.auth.errors import AuthError
from gateway.core.errors import CoreError, ErrorKind

# SQS answers most refusals with 400, whatever their kind (a missing queue included).
_STATUS_BY_KIND = {
    ErrorKind.INVALID: 400,
    ErrorKind.NOT_FOUND: 400,
    ErrorKind.CONFLICT: 400,
    ErrorKind.TOO_LARGE: 400,
    ErrorKind.FORBIDDEN: 403,
    ErrorKind.UNAUTHORIZED: 403,
    ErrorKind.UNAVAILABLE: 503,
    ErrorKind.INTERNAL: 500,
}

# Error shape name -> the Query API's code, where they differ (AWS's own table).
_QUERY_CODES = {
    "QueueDoesNotExist": "AWS.SimpleQueueService.NonExistentQueue",
    "QueueDeletedRecently": "AWS.SimpleQueueService.QueueDeletedRecently",
    "QueueNameExists": "QueueAlreadyExists",
    "PurgeQueueInProgress": "AWS.SimpleQueueService.PurgeQueueInProgress",
    "BatchEntryIdsNotDistinct": "AWS.SimpleQueueService.BatchEntryIdsNotDistinct",
    "BatchRequestTooLong": "AWS.SimpleQueueService.BatchRequestTooLong",
    "EmptyBatchRequest": "AWS.SimpleQueueService.EmptyBatchRequest",
    "InvalidBatchEntryId": "AWS.SimpleQueueService.InvalidBatchEntryId",
    "TooManyEntriesInBatchRequest": "AWS.SimpleQueueService.TooManyEntriesInBatchRequest",
    "UnsupportedOperation": "AWS.SimpleQueueService.UnsupportedOperation",
    "MessageNotInflight": "AWS.SimpleQueueService.MessageNotInflight",
}
# Codes with no error shape in SQS's model, which AWS's JSON API names after the framework
# exceptions behind them (botocore shows the name as Error.QueryErrorCode).
_TYPE_NAMES = {
    "InvalidParameterValue": "com.amazon.coral.service#InvalidParameterValueException",
    "MissingParameter": "com.amazon.coral.service#MissingRequiredParameterException",
}


class SqsError(Exception):
    def __init__(
        self, code: str, message: str, *, http_status: int = 400, sender_fault: bool = True
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.http_status = http_status
        self.sender_fault = sender_fault

    @property
    def type_name(self) -> str:
        return _TYPE_NAMES.get(self.code) or f"com.amazonaws.sqs#{self.code}"

    @property
    def query_error(self) -> str:
        fault = "Sender" if self.sender_fault else "Receiver"
        return f"{_QUERY_CODES.get(self.code, self.code)};{fault}"


def from_core(exc: CoreError | AuthError) -> SqsError:
    """The SQS form of an error of the core or of authentication."""
    if isinstance(exc, AuthError):
        return SqsError(
            exc.code, str(exc), http_status=exc.http_status, sender_fault=exc.sender_fault
        )
    if exc.code == "MessageTooLong":
        # SQS words a message over MaximumMessageSize as a bad parameter.
        return invalid_parameter(
            "One or more parameters are invalid. Reason: Message must be shorter than "
            f"{exc.limit_bytes} bytes."
        )
    return SqsError(
        exc.code,
        exc.message,
        http_status=_STATUS_BY_KIND[exc.kind],
        sender_fault=exc.sender_fault,
    )


def visibility_refused(exc: CoreError, receipt_handle: str) -> SqsError:
    """The SQS form of a refused visibility change: a receipt that names no message in
    flight (deleted, or received again since) is a bad ReceiptHandle in SQS's words."""
    if exc.code == "MessageNotInflight":
        return invalid_parameter(
            f"Value {receipt_handle} for parameter ReceiptHandle is invalid. Reason: Message "
            "does not exist or is not available for visibility timeout change."
        )
    return from_core(exc)


def invalid_parameter(message: str) -> SqsError:
    return SqsError("InvalidParameterValue", message)


def missing_parameter(name: str) -> SqsError:
    return SqsError("MissingParameter", f"The request must contain the parameter {name}.")
