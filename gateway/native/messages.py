"""Message shapes: send (one or a batch), receive, delete, change visibility."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta, Struct

from gateway.native.common import (
    MAX_BATCH_ENTRIES,
    EntryResult,
    ErrorDetail,
    MessageAttributeValue,
    ReceiptHandle,
)

Attributes = Annotated[dict[str, MessageAttributeValue], Meta(max_length=10)]
# SQS's rule for group and deduplication ids: 1-128 alphanumeric or punctuation characters.
FifoId = Annotated[str, Meta(pattern=r"^[A-Za-z0-9!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]{1,128}$")]
Batch = Meta(
    description=f"1 to {MAX_BATCH_ENTRIES} entries.",
    extra_json_schema={"minItems": 1, "maxItems": MAX_BATCH_ENTRIES},
)


class SendMessage(Struct, forbid_unknown_fields=True):
    """A message to send to a queue or publish to a topic. FIFO queues and topics need
    `group_id`, and `dedup_id` unless they have ContentBasedDeduplication; FIFO queues
    take no per-message delay. Topics take `subject`, and neither delays nor system
    attributes; queues take no `subject`."""

    body: Annotated[
        str,
        Meta(
            min_length=1,
            description="Text: the characters SQS allows (XML 1.0's: no NUL or other "
            "control characters but tab, line feed and carriage return). Binary data goes "
            "base64-encoded in the body, or in a Binary attribute.",
            examples=["hello"],
        ),
    ]
    attributes: Attributes | None = None
    system_attributes: (
        Annotated[
            dict[str, MessageAttributeValue], Meta(description="Only AWSTraceHeader, a String.")
        ]
        | None
    ) = None
    delay_seconds: (
        Annotated[int, Meta(ge=0, le=900, description="Delay before the message can be received.")]
        | None
    ) = None
    delay_level: (
        Annotated[
            int,
            Meta(
                ge=1,
                le=18,
                description="Instead of delay_seconds, one of 18 named delays, up to 2 h: "
                "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h.",
            ),
        ]
        | None
    ) = None
    group_id: FifoId | None = None
    dedup_id: FifoId | None = None
    subject: (
        Annotated[
            str,
            Meta(
                min_length=1,
                max_length=100,
                description="Topics only: SNS's Subject, printable ASCII, up to 100 characters.",
            ),
        ]
        | None
    ) = None


class SentMessage(Struct, omit_defaults=True):
    message_id: str
    md5_of_body: str
    md5_of_attributes: str | None = None
    sequence_number: (
        Annotated[str, Meta(description="FIFO queues: increasing within the queue.")] | None
    ) = None


class SendBatch(Struct, forbid_unknown_fields=True):
    messages: Annotated[list[SendMessage], Batch]


class SendResult(Struct, omit_defaults=True):
    """One entry of a batch send: the sent message's fields, or `error`."""

    index: int
    message_id: str | None = None
    md5_of_body: str | None = None
    md5_of_attributes: str | None = None
    sequence_number: str | None = None
    error: ErrorDetail | None = None


class SendBatchResults(Struct):
    results: list[SendResult]


class Receive(Struct, forbid_unknown_fields=True):
    max_messages: Annotated[int, Meta(ge=1, le=100, description="Default 1.")] = 1
    wait_seconds: (
        Annotated[int, Meta(ge=0, le=20, description="Long poll; default: the queue's wait time.")]
        | None
    ) = None
    visibility_timeout: (
        Annotated[int, Meta(ge=0, le=43_200, description="Seconds; default: the queue's.")] | None
    ) = None


class ReceivedMessage(Struct, omit_defaults=True):
    message_id: str
    receipt_handle: str
    body: str
    md5_of_body: str
    attributes: dict[str, MessageAttributeValue]
    system_attributes: Annotated[
        dict[str, str], Meta(description="AWSTraceHeader, DeadLetterQueueSourceArn.")
    ]
    receive_count: int
    sent_timestamp: Annotated[int, Meta(description="ms since the epoch")]
    first_receive_timestamp: Annotated[int, Meta(description="ms since the epoch")]
    group_id: str | None = None
    dedup_id: str | None = None
    sequence_number: str | None = None


class ReceivedMessages(Struct):
    messages: list[ReceivedMessage]


class DeleteMessages(Struct, forbid_unknown_fields=True):
    receipt_handles: Annotated[list[ReceiptHandle], Batch]


class VisibilityChange(Struct, forbid_unknown_fields=True):
    receipt_handle: ReceiptHandle
    visibility_timeout: Annotated[int, Meta(ge=0, le=43_200, description="Seconds from now.")]


class ChangeVisibility(Struct, forbid_unknown_fields=True):
    entries: Annotated[list[VisibilityChange], Batch]


class EntryResults(Struct):
    results: list[EntryResult]
