"""SQS errors as the wire shows them.

    SqsError                    code, message, HTTP status, sender fault
     (control_plane.errors.ControlPlaneError subclasses are turned into SqsError by the
      endpoint, through their `sqs_code` / `http_status` / `sender_fault` attributes)

A JSON 1.0 error body is `{"__type": "com.amazonaws.sqs#<Code>", "message": "..."}`, and
the `x-amzn-query-error` header carries the code the older Query API used (AWS sends both;
botocore reports the Query code in `Error.Code` and picks the exception class by name).
"""

from __future__ import annotations

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
        return f"com.amazonaws.sqs#{self.code}"

    @property
    def query_error(self) -> str:
        fault = "Sender" if self.sender_fault else "Receiver"
        return f"{_QUERY_CODES.get(self.code, self.code)};{fault}"


def invalid_parameter(message: str) -> SqsError:
    return SqsError("InvalidParameterValue", message)


def missing_parameter(name: str) -> SqsError:
    return SqsError("MissingParameter", f"The request must contain the parameter {name}.")
