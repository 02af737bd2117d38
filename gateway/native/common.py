"""Shapes the native APIs (REST and WebSocket) share: errors, queue and topic names,
subscription ids, message attributes, batch entry results."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta, Struct

# SQS's rule (gateway/core/queue_urls.py): 1-80 of these characters, FIFO names end in .fifo.
QUEUE_NAME_PATTERN = r"^(?:[A-Za-z0-9_-]{1,80}|[A-Za-z0-9_-]{1,75}\.fifo)$"
QueueName = Annotated[
    str,
    Meta(
        pattern=QUEUE_NAME_PATTERN,
        description="1 to 80 letters, digits, hyphens or underscores; a FIFO queue's name "
        "ends in `.fifo`.",
        examples=["orders"],
    ),
]
# SNS's rule: 1-256 of these characters; a FIFO topic's name ends in .fifo.
TOPIC_NAME_PATTERN = r"^(?:[A-Za-z0-9_-]{1,256}|[A-Za-z0-9_-]{1,251}\.fifo)$"
TopicName = Annotated[
    str,
    Meta(
        pattern=TOPIC_NAME_PATTERN,
        description="1 to 256 letters, digits, hyphens or underscores; a FIFO topic's name "
        "ends in `.fifo`.",
        examples=["news"],
    ),
]
SubscriptionId = Annotated[
    str,
    Meta(
        pattern=r"^[0-9a-f-]{36}$",
        description="A subscription's id: the last part of its ARN.",
        examples=["3f1c0a1b-2c3d-4e5f-6071-8293a4b5c6d7"],
    ),
]
MAX_BATCH_ENTRIES = 100
# Receipt handles are opaque; this only bounds what is read.
ReceiptHandle = Annotated[str, Meta(min_length=1, max_length=1024)]


class ErrorDetail(Struct):
    code: Annotated[
        str, Meta(description="The SQS API's error code where it has one, e.g. QueueDoesNotExist.")
    ]
    message: str


class ErrorResponse(Struct):
    """Every error: an HTTP status (400, 401, 404, 409, 413, 503) and this body."""

    error: ErrorDetail


class MessageAttributeValue(Struct, forbid_unknown_fields=True, omit_defaults=True):
    """A message attribute, as in SQS: `String`, `Number` or `Binary`, optionally with a
    `.custom` suffix; a String or Number has `string_value`, a Binary `binary_value`
    (base64)."""

    data_type: Annotated[str, Meta(min_length=1, max_length=256, examples=["String"])]
    string_value: str | None = None
    binary_value: Annotated[str, Meta(description="base64")] | None = None


class EntryResult(Struct, omit_defaults=True):
    """One entry of a batch: `error` is absent where the entry succeeded."""

    index: Annotated[int, Meta(description="The entry's position in the request, from 0.")]
    error: ErrorDetail | None = None
