"""Queue shapes: create, describe, list, change, tag."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta, Struct

from gateway.core.partitioning import MAX_PARTITIONS
from gateway.native.common import QueueName

QueueAttributes = Annotated[
    dict[str, str],
    Meta(
        description="SQS's queue attribute names and string values, with SQS's ranges: "
        "DelaySeconds, MaximumMessageSize, MessageRetentionPeriod, "
        "ReceiveMessageWaitTimeSeconds, VisibilityTimeout, RedrivePolicy, "
        "RedriveAllowPolicy, Policy, Partitions (TideMQ's: 1 to 64, fixed at creation), "
        "Replication (TideMQ's: none, replica or object, fixed at creation; the "
        "deployment's TIDEMQ_REPLICATION by default) and, for FIFO queues, FifoQueue, "
        "ContentBasedDeduplication, DeduplicationScope, FifoThroughputLimit.",
        examples=[{"VisibilityTimeout": "60"}],
    ),
]
Tags = Annotated[
    dict[str, str],
    Meta(
        max_length=50,
        description="At most 50; keys 1-128 characters not starting `aws:`, values up to 256.",
    ),
]


class CreateQueue(Struct, forbid_unknown_fields=True):
    name: QueueName
    attributes: QueueAttributes | None = None
    tags: Tags | None = None
    partitions: (
        Annotated[
            int,
            Meta(
                ge=1,
                le=MAX_PARTITIONS,
                description="How many partitions its log has (default 1), fixed once it is "
                "created: the attribute `Partitions`. Messages are spread over them; a FIFO "
                "queue's message group stays in one.",
            ),
        ]
        | None
    ) = None


class SetQueueAttributes(Struct, forbid_unknown_fields=True):
    attributes: Annotated[QueueAttributes, Meta(min_length=1)]


class QueueStats(Struct):
    """Approximate counts, as SQS's ApproximateNumberOfMessages* are."""

    visible: Annotated[int, Meta(description="Messages available to receive.")]
    in_flight: Annotated[int, Meta(description="Received and neither deleted nor visible again.")]
    delayed: Annotated[int, Meta(description="Sent with a delay that has not ended.")]


class Queue(Struct):
    """A queue: its attributes (defaults included) and its approximate counts."""

    name: str
    url: Annotated[str, Meta(description="The queue's URL on the SQS API.")]
    arn: str
    fifo: bool
    created_timestamp: Annotated[int, Meta(description="ms since the epoch")]
    last_modified_timestamp: Annotated[int, Meta(description="ms since the epoch")]
    partitions: Annotated[int, Meta(description="How many partitions its log has.")]
    attributes: dict[str, str]
    stats: QueueStats


class QueueRef(Struct):
    name: str
    url: Annotated[str, Meta(description="The queue's URL on the SQS API.")]


class QueueList(Struct, omit_defaults=True):
    queues: list[QueueRef]
    next_after: (
        Annotated[
            str, Meta(description="More queues follow: pass this as `after` for the next page.")
        ]
        | None
    ) = None


class ListQueuesQuery(Struct, forbid_unknown_fields=True):
    prefix: Annotated[str, Meta(max_length=80, description="Only names starting so.")] = ""
    limit: Annotated[int, Meta(ge=1, le=1000, description="Most queues in one page.")] = 1000
    after: (
        Annotated[
            str,
            Meta(max_length=80, description="Only names after this one (a page's `next_after`)."),
        ]
        | None
    ) = None


class DeadLetterSources(Struct):
    """The queues whose RedrivePolicy names this queue as their dead-letter queue."""

    queues: list[QueueRef]


class TagList(Struct):
    tags: dict[str, str]


class AddTags(Struct, forbid_unknown_fields=True):
    tags: Annotated[Tags, Meta(min_length=1)]


class RemoveTags(Struct, forbid_unknown_fields=True):
    keys: Annotated[list[Annotated[str, Meta(max_length=128)]], Meta(min_length=1, max_length=50)]
