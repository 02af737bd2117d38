"""A queue's settings as typed values: parsed once from its stored attributes.

The stored form of a queue's attributes is SQS's (names and canonical strings, see
control_plane/queue_attributes.py): both the SQS API and the REST API take and show
attributes by those names. Everything that acts on a queue reads this frozen value
instead, with units in its names, so no attribute string is parsed on a send or a
receive. A QueueInfo builds it when it is read from Redis, which the metadata cache then
keeps: once per change of the queue, not once per use.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from control_plane.queue_attributes import (
    RedriveAllowPolicy,
    RedrivePolicy,
    redrive_allow_policy,
    redrive_policy,
    with_defaults,
)


@dataclass(frozen=True, slots=True)
class QueueSettings:
    fifo: bool
    delay_ms: int
    visibility_timeout_ms: int
    receive_wait_ms: int
    retention_ms: int
    max_message_bytes: int
    redrive: RedrivePolicy | None  # None: no dead-letter queue
    redrive_allow: RedriveAllowPolicy
    policy: str | None  # the access policy's JSON, None: the owner only
    content_based_deduplication: bool  # FIFO only
    dedup_per_group: bool  # FIFO only: DeduplicationScope messageGroup


def parse_settings(attributes: Mapping[str, str], fifo: bool) -> QueueSettings:
    """The settings of a queue whose stored (validated, canonical) attributes these are."""
    effective = with_defaults(attributes, fifo)
    return QueueSettings(
        fifo=fifo,
        delay_ms=int(effective["DelaySeconds"]) * 1000,
        visibility_timeout_ms=int(effective["VisibilityTimeout"]) * 1000,
        receive_wait_ms=int(effective["ReceiveMessageWaitTimeSeconds"]) * 1000,
        retention_ms=int(effective["MessageRetentionPeriod"]) * 1000,
        max_message_bytes=int(effective["MaximumMessageSize"]),
        redrive=redrive_policy(attributes),
        redrive_allow=redrive_allow_policy(attributes),
        policy=attributes.get("Policy") or None,
        content_based_deduplication=effective.get("ContentBasedDeduplication") == "true",
        dedup_per_group=effective.get("DeduplicationScope") == "messageGroup",
    )
