"""The WebSocket API's frames: JSON text frames, one object each.

A client frame names its operation in `op`; a server frame its kind in `type`. Every
client frame may carry an `id` that the server's answer to it repeats, so a client can
have many operations outstanding on one connection. Message, batch-result and error
shapes are the native APIs' (gateway/native), so a message looks the same on REST and here.
The AsyncAPI document (gateway/ws/asyncapi.py) is generated from these Structs.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta, Struct

from gateway.native.common import (
    MAX_BATCH_ENTRIES,
    EntryResult,
    ErrorDetail,
    QueueName,
    ReceiptHandle,
)
from gateway.native.messages import ReceivedMessage, SendMessage, SendResult

MAX_CREDIT = 1000
DEFAULT_CREDIT = 10

RequestId = Annotated[
    str,
    Meta(
        max_length=128,
        description="Any text; the server's answer to this frame carries it back.",
        examples=["r1"],
    ),
]
Credit = Annotated[
    int,
    Meta(
        ge=0,
        le=MAX_CREDIT,
        description="The most messages this subscription may hold delivered and unsettled "
        "(not acked, nacked, or past their visibility timeout); 0 pauses it.",
    ),
]
VisibilityTimeout = Annotated[int, Meta(ge=0, le=43_200, description="Seconds.")]
Receipts = Annotated[
    list[ReceiptHandle],
    Meta(
        description=f"1 to {MAX_BATCH_ENTRIES} receipt handles of messages of the queue.",
        extra_json_schema={"minItems": 1, "maxItems": MAX_BATCH_ENTRIES},
    ),
]


class _ClientFrame(Struct, tag_field="op", forbid_unknown_fields=True, kw_only=True):
    id: RequestId | None = None


class Subscribe(_ClientFrame, tag="subscribe"):
    """Start pushing the queue's messages to this connection (one subscription a queue)."""

    queue: QueueName
    credit: Credit = DEFAULT_CREDIT
    visibility_timeout: (
        Annotated[VisibilityTimeout, Meta(description="Seconds; default: the queue's.")] | None
    ) = None


class SetCredit(_ClientFrame, tag="credit"):
    """Change a subscription's credit (raising it lets more messages through at once)."""

    queue: QueueName
    credit: Credit


class Unsubscribe(_ClientFrame, tag="unsubscribe"):
    """Stop the subscription; its unsettled messages become visible again at once."""

    queue: QueueName


class Ack(_ClientFrame, tag="ack"):
    """Delete messages: they were processed."""

    queue: QueueName
    receipt_handles: Receipts


class Nack(_ClientFrame, tag="nack"):
    """Give messages back: visible again after `delay_seconds` (default: at once)."""

    queue: QueueName
    receipt_handles: Receipts
    delay_seconds: VisibilityTimeout = 0


class Extend(_ClientFrame, tag="extend"):
    """Keep messages invisible for `visibility_timeout` seconds from now."""

    queue: QueueName
    receipt_handles: Receipts
    visibility_timeout: VisibilityTimeout


class Publish(_ClientFrame, tag="publish"):
    """Send messages, as the REST API's batch send: answered once they are durable."""

    queue: QueueName
    messages: Annotated[
        list[SendMessage],
        Meta(
            description=f"1 to {MAX_BATCH_ENTRIES} messages.",
            extra_json_schema={"minItems": 1, "maxItems": MAX_BATCH_ENTRIES},
        ),
    ]


ClientFrame = Subscribe | SetCredit | Unsubscribe | Ack | Nack | Extend | Publish
CLIENT_FRAMES: tuple[type[_ClientFrame], ...] = (
    Subscribe,
    SetCredit,
    Unsubscribe,
    Ack,
    Nack,
    Extend,
    Publish,
)
OPS = tuple(str(frame.__struct_config__.tag) for frame in CLIENT_FRAMES)


class _ServerFrame(Struct, tag_field="type", omit_defaults=True, kw_only=True):
    id: RequestId | None = None


class Subscribed(_ServerFrame, tag="subscribed"):
    """The answer to `subscribe`: messages follow in `deliver` frames."""

    queue: str
    credit: int


class CreditSet(_ServerFrame, tag="credit_set"):
    """The answer to `credit`."""

    queue: str
    credit: int


class Unsubscribed(_ServerFrame, tag="unsubscribed"):
    """The answer to `unsubscribe`; or, with `reason` and no `id`, the server ended the
    subscription (its queue was deleted)."""

    queue: str
    reason: ErrorDetail | None = None


class Deliver(_ServerFrame, tag="deliver"):
    """Messages pushed to a subscription; each stays invisible to other receivers for the
    visibility timeout unless acked, nacked or extended with its receipt handle."""

    queue: str
    messages: list[ReceivedMessage]


class Settled(_ServerFrame, tag="settled"):
    """The answer to `ack`, `nack` and `extend`: one result per receipt handle, in order."""

    op: Literal["ack", "nack", "extend"]
    queue: str
    results: list[EntryResult]


class Published(_ServerFrame, tag="published"):
    """The answer to `publish`: one result per message, in order."""

    queue: str
    results: list[SendResult]


class Error(_ServerFrame, tag="error"):
    """A frame that could not be carried out, with the REST API's error code; nothing it
    asked for was done. Connection-wide errors (a revoked token) come just before the
    server closes the connection with code 1008."""

    error: ErrorDetail
    op: str | None = None


ServerFrame = Subscribed | CreditSet | Unsubscribed | Deliver | Settled | Published | Error
SERVER_FRAMES: tuple[type[_ServerFrame], ...] = (
    Subscribed,
    CreditSet,
    Unsubscribed,
    Deliver,
    Settled,
    Published,
    Error,
)
