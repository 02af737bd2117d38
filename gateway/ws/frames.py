"""The WebSocket API's frames: JSON text frames, one object each.

A client frame names its operation in `op`; a server frame its kind in `type`. Every
client frame may carry an `id` that the server's answer to it repeats, so a client can
have many operations outstanding on one connection. What is consumed is a `queue` or a
pull `subscription` of a topic (one of the two, by name or id); what is published to, a
`queue` or a `topic`. The server's frames name it the same way. Message, batch-result and error
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
    SubscriptionId,
    TopicName,
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
        description=f"1 to {MAX_BATCH_ENTRIES} receipt handles of messages of the queue "
        "(the subscription).",
        extra_json_schema={"minItems": 1, "maxItems": MAX_BATCH_ENTRIES},
    ),
]


class _ClientFrame(Struct, tag_field="op", forbid_unknown_fields=True, kw_only=True):
    id: RequestId | None = None


class _Consuming(_ClientFrame, kw_only=True):
    """A frame about what is consumed: a queue, or a pull subscription (one of the two)."""

    queue: QueueName | None = None
    subscription: (
        Annotated[SubscriptionId, Meta(description="A pull subscription, instead of a queue.")]
        | None
    ) = None


class Subscribe(_Consuming, tag="subscribe"):
    """Start pushing the messages of a queue, or of a pull subscription of a topic, to this
    connection (one subscription of the connection to each)."""

    credit: Credit = DEFAULT_CREDIT
    visibility_timeout: (
        Annotated[
            VisibilityTimeout,
            Meta(description="Seconds; default: the queue's (the subscription's)."),
        ]
        | None
    ) = None


class SetCredit(_Consuming, tag="credit"):
    """Change a subscription's credit (raising it lets more messages through at once)."""

    credit: Credit


class Unsubscribe(_Consuming, tag="unsubscribe"):
    """Stop the subscription; its unsettled messages become visible again at once."""


class Ack(_Consuming, tag="ack"):
    """Delete messages: they were processed."""

    receipt_handles: Receipts


class Nack(_Consuming, tag="nack"):
    """Give messages back: visible again after `delay_seconds` (default: at once)."""

    receipt_handles: Receipts
    delay_seconds: VisibilityTimeout = 0


class Extend(_Consuming, tag="extend"):
    """Keep messages invisible for `visibility_timeout` seconds from now."""

    receipt_handles: Receipts
    visibility_timeout: VisibilityTimeout


class Seek(_ClientFrame, tag="seek"):
    """Move a pull subscription's cursor to an `offset` of its topic's log, or to the
    first message published at or after `timestamp` (one of the two): everything from
    there is delivered again, and what was in flight is forgotten."""

    subscription: SubscriptionId
    offset: Annotated[int, Meta(ge=0, description="0 to the log's end offset.")] | None = None
    timestamp: Annotated[int, Meta(ge=0, description="ms since the epoch")] | None = None


class Publish(_ClientFrame, tag="publish", kw_only=True):
    """Send messages to a queue, as the REST API's batch send, or publish them to a topic
    (one of the two): answered once they are durable."""

    queue: QueueName | None = None
    topic: TopicName | None = None
    messages: Annotated[
        list[SendMessage],
        Meta(
            description=f"1 to {MAX_BATCH_ENTRIES} messages.",
            extra_json_schema={"minItems": 1, "maxItems": MAX_BATCH_ENTRIES},
        ),
    ]


ClientFrame = Subscribe | SetCredit | Unsubscribe | Ack | Nack | Extend | Seek | Publish
CLIENT_FRAMES: tuple[type[_ClientFrame], ...] = (
    Subscribe,
    SetCredit,
    Unsubscribe,
    Ack,
    Nack,
    Extend,
    Seek,
    Publish,
)
OPS = tuple(str(frame.__struct_config__.tag) for frame in CLIENT_FRAMES)


class _ServerFrame(Struct, tag_field="type", omit_defaults=True, kw_only=True):
    id: RequestId | None = None


class _Consumed(_ServerFrame, kw_only=True):
    """A frame about a queue or a pull subscription: named as the client named it."""

    queue: str | None = None
    subscription: str | None = None


class Subscribed(_Consumed, tag="subscribed"):
    """The answer to `subscribe`: messages follow in `deliver` frames."""

    credit: int


class CreditSet(_Consumed, tag="credit_set"):
    """The answer to `credit`."""

    credit: int


class Unsubscribed(_Consumed, tag="unsubscribed"):
    """The answer to `unsubscribe`; or, with `reason` and no `id`, the server ended the
    subscription (its queue, or its topic subscription, was deleted)."""

    reason: ErrorDetail | None = None


class Deliver(_Consumed, tag="deliver"):
    """Messages pushed to a subscription; each stays invisible to other receivers for the
    visibility timeout unless acked, nacked or extended with its receipt handle."""

    messages: Annotated[
        list[ReceivedMessage],
        Meta(
            description=f"1 to {MAX_BATCH_ENTRIES} messages: as many as were deliverable "
            "at once within the credit. Their receipt handles can be acked (nacked, "
            f"extended) together, up to {MAX_BATCH_ENTRIES} in one frame.",
            extra_json_schema={"minItems": 1, "maxItems": MAX_BATCH_ENTRIES},
        ),
    ]


class Settled(_Consumed, tag="settled"):
    """The answer to `ack`, `nack` and `extend`: one result per receipt handle, in order."""

    op: Literal["ack", "nack", "extend"]
    results: list[EntryResult]


class CursorSet(_ServerFrame, tag="cursor_set"):
    """The answer to `seek`: the subscription gets the messages from `offset` on."""

    subscription: str
    offset: int
    end_offset: Annotated[int, Meta(description="The topic log's end: the next publish's offset.")]


class Published(_ServerFrame, tag="published", kw_only=True):
    """The answer to `publish`: one result per message, in order."""

    queue: str | None = None
    topic: str | None = None
    results: list[SendResult]


class Error(_ServerFrame, tag="error"):
    """A frame that could not be carried out, with the REST API's error code; nothing it
    asked for was done. Connection-wide errors (a revoked token) come just before the
    server closes the connection with code 1008."""

    error: ErrorDetail
    op: str | None = None


ServerFrame = (
    Subscribed | CreditSet | Unsubscribed | Deliver | Settled | CursorSet | Published | Error
)
SERVER_FRAMES: tuple[type[_ServerFrame], ...] = (
    Subscribed,
    CreditSet,
    Unsubscribed,
    Deliver,
    Settled,
    CursorSet,
    Published,
    Error,
)
