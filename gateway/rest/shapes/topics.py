"""Topic and subscription shapes: create, describe, list, change; publish; seek."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta, Struct

from gateway.core.partitioning import MAX_PARTITIONS
from gateway.native.common import TopicName
from gateway.rest.shapes.queues import Tags

TopicAttributes = Annotated[
    dict[str, str],
    Meta(
        description="SNS's topic attribute names and string values: DisplayName, Policy, "
        "DeliveryPolicy, SignatureVersion, TracingConfig, KmsMasterKeyId, Partitions and "
        "Replication (TideMQ's, fixed at creation: 1 to 64; none, replica or object) "
        "and, for FIFO topics, FifoTopic, ContentBasedDeduplication, FifoThroughputScope, "
        "ArchivePolicy.",
        examples=[{"DisplayName": "News"}],
    ),
]
SubscriptionAttributes = Annotated[
    dict[str, str],
    Meta(
        description="SNS's subscription attribute names and string values: FilterPolicy, "
        "FilterPolicyScope, RedrivePolicy, RawMessageDelivery (sqs, http, https), "
        "DeliveryPolicy (http, https) and, for pull subscriptions, VisibilityTimeout "
        "(seconds, default 30) and a RedrivePolicy with `maxReceiveCount`.",
        examples=[{"FilterPolicy": '{"colour": ["red"]}'}],
    ),
]
Millis = Annotated[int, Meta(description="ms since the epoch")]


class CreateTopic(Struct, forbid_unknown_fields=True):
    name: TopicName
    attributes: TopicAttributes | None = None
    tags: Tags | None = None
    partitions: (
        Annotated[
            int,
            Meta(
                ge=1,
                le=MAX_PARTITIONS,
                description="How many partitions its log has (default 1), fixed once it is "
                "created: the attribute `Partitions`. Messages are spread over them; a FIFO "
                "topic's message group stays in one.",
            ),
        ]
        | None
    ) = None


class SetTopicAttributes(Struct, forbid_unknown_fields=True):
    attributes: Annotated[TopicAttributes, Meta(min_length=1)]


class Topic(Struct):
    """A topic: its attributes as SNS's GetTopicAttributes shows them, with the counts of
    its subscriptions."""

    name: str
    arn: str
    fifo: bool
    created_timestamp: Millis
    partitions: Annotated[int, Meta(description="How many partitions its log has.")]
    attributes: dict[str, str]


class TopicRef(Struct):
    name: str
    arn: str


class TopicList(Struct, omit_defaults=True):
    topics: list[TopicRef]
    next_after: (
        Annotated[
            str, Meta(description="More topics follow: pass this as `after` for the next page.")
        ]
        | None
    ) = None


class ListTopicsQuery(Struct, forbid_unknown_fields=True):
    limit: Annotated[int, Meta(ge=1, le=100, description="Most topics in one page.")] = 100
    after: (
        Annotated[
            str,
            Meta(max_length=256, description="Only names after this one (a page's `next_after`)."),
        ]
        | None
    ) = None


class PublishedMessage(Struct, omit_defaults=True):
    message_id: str
    sequence_number: (
        Annotated[str, Meta(description="FIFO topics: increasing within the topic.")] | None
    ) = None


class CreateSubscription(Struct, forbid_unknown_fields=True):
    """Subscribe to the topic. `pull` subscriptions are received from with this API and
    the WebSocket API; TideMQ delivers the others itself."""

    protocol: Literal["pull", "sqs", "http", "https"]
    endpoint: Annotated[
        str,
        Meta(
            min_length=1,
            max_length=2048,
            description="pull: the subscription's name within the topic (letters, digits, "
            "`-`, `_`, `.`); sqs: the queue's ARN; http, https: the webhook's URL.",
            examples=["analytics"],
        ),
    ]
    attributes: SubscriptionAttributes | None = None


class SetSubscriptionAttributes(Struct, forbid_unknown_fields=True):
    attributes: Annotated[SubscriptionAttributes, Meta(min_length=1)]


class SubscriptionStats(Struct):
    """Approximate counts of a pull subscription."""

    visible: Annotated[int, Meta(description="Messages it may receive now.")]
    in_flight: Annotated[int, Meta(description="Received and neither deleted nor visible again.")]


class Subscription(Struct, omit_defaults=True):
    """A subscription: its attributes as SNS's GetSubscriptionAttributes shows them."""

    id: str
    arn: str
    topic: str
    topic_arn: str
    protocol: str
    endpoint: str
    pending: Annotated[bool, Meta(description="http, https: waiting for confirmation.")]
    created_timestamp: Millis
    attributes: dict[str, str]
    stats: (
        Annotated[SubscriptionStats, Meta(description="Pull subscriptions, described alone.")]
        | None
    ) = None


class SubscriptionList(Struct, omit_defaults=True):
    subscriptions: list[Subscription]
    next_after: (
        Annotated[
            str,
            Meta(description="More subscriptions follow: pass this as `after` for the next page."),
        ]
        | None
    ) = None


class ListSubscriptionsQuery(Struct, forbid_unknown_fields=True):
    limit: Annotated[int, Meta(ge=1, le=100, description="Most subscriptions in one page.")] = 100
    after: (
        Annotated[
            str,
            Meta(max_length=36, description="Only ids after this one (a page's `next_after`)."),
        ]
        | None
    ) = None


class Seek(Struct, forbid_unknown_fields=True):
    """Where to move a pull subscription's cursor: an `offset`, or the first message
    published at or after `timestamp`. Give one of the two."""

    offset: (
        Annotated[int, Meta(ge=0, description="0 to the log's end offset (only new messages).")]
        | None
    ) = None
    timestamp: Annotated[int, Meta(ge=0, description="ms since the epoch")] | None = None


class Sought(Struct):
    """The subscription's cursor after the seek: it gets the messages from `offset` on."""

    offset: int
    end_offset: Annotated[int, Meta(description="The topic log's end: the next publish's offset.")]
