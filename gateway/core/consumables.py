"""What a receive consumes: one value that a queue and a pull subscription both produce.

A queue is a stream with one implicit subscription: a receive reads the queue's own log
and keeps its delivery state (cursors, timers, receipts) under the stream's id. A pull
subscription reads its topic's log in place, with no copy (as a Pulsar subscription
does), and keeps its delivery state under its own id. The receiver
(gateway/core/receiver.py) takes this value and nothing else, so receive, delete, change
visibility and dead-lettering mean the same for both.
"""

from __future__ import annotations

from dataclasses import dataclass

from control_plane.queue_attributes import RedrivePolicy
from control_plane.queues import QueueInfo
from gateway.core.filter_policies import FilterPolicy

__all__ = ["Consumable", "RedrivePolicy", "queue_consumable"]


@dataclass(frozen=True, slots=True)
class Consumable:
    stream_id: str  # the log read; its appends wake a long poll
    subscription_id: str  # whose delivery state: cursors, timers, receipts
    partitions: int
    fifo: bool
    visibility_timeout_ms: int  # for a receive that names none
    receive_wait_ms: int  # for a receive that names none
    retention_ms: int | None  # older records are removed unseen; None: while the log has them
    redrive: RedrivePolicy | None  # None: no dead-letter queue
    arn: str  # what its dead letters carry as DeadLetterQueueSourceArn
    filter_policy: FilterPolicy | None = None  # records it does not match are removed unseen


def queue_consumable(queue: QueueInfo) -> Consumable:
    """A queue: its own log, under its implicit subscription (the stream's id)."""
    settings = queue.settings
    return Consumable(
        stream_id=queue.stream_id,
        subscription_id=queue.stream_id,
        partitions=queue.partitions,
        fifo=queue.fifo,
        visibility_timeout_ms=settings.visibility_timeout_ms,
        receive_wait_ms=settings.receive_wait_ms,
        retention_ms=settings.retention_ms,
        redrive=settings.redrive,
        arn=queue.arn,
    )
