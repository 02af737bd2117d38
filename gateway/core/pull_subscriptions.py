"""Pull subscriptions: a topic's log consumed in place with the queue verbs, and sought.

A `pull` subscription (TideMQ's own protocol; SNS's Subscribe takes it too) gets no
copies. It has its own delivery state (cursor, timers, receive counts) on its topic's
log, which starts at the log's end when it subscribes, and it is received from, deleted
from and changed like a queue: the broker's receive, delete_messages and
change_visibility take the `Consumable` this module makes of it. Its settings are its
attributes: VisibilityTimeout (default 30 s), RedrivePolicy (a dead-letter queue and
maxReceiveCount), FilterPolicy and FilterPolicyScope (a message it does not match is
removed when claimed, never delivered). A message is kept as long as the topic's log
keeps it, locally or in the archive: a subscription sets no age limit of its own.

Seek, as Kafka and Pulsar have it: the cursor moves to an offset, or to the first
offset at or after a time (the node finds it in its log, or in the archive for tiered
segments). As in Pulsar, every message from the new position on is delivered again,
whatever was delivered before, and what was in flight is forgotten: receipts handed out
before the seek delete nothing and change nothing (docs/topics.md). On a topic of several
partitions a time is found in each partition's log; an offset is taken in each (a
partition whose log is shorter goes to its end), so 0 replays everything.
"""

from __future__ import annotations

from dataclasses import dataclass

from control_plane.deliveries import SubscriptionStats
from control_plane.errors import NotFound
from control_plane.plane import ControlPlane
from control_plane.subscriptions import SubscriptionInfo
from gateway.core import subscription_attributes
from gateway.core.consumables import Consumable
from gateway.core.errors import CoreError, invalid_parameter, translated
from gateway.core.fanout import Filters
from gateway.core.receiver import log_ends
from gateway.core.subscription_attributes import PULL
from storage_nodes.node import Node


@dataclass(frozen=True, slots=True)
class Sought:
    """Where a seek left the subscription."""

    # The next offset it delivers (several partitions: the lowest of theirs).
    offset: int
    # The topic log's end when it sought, the offset of the next publish (several
    # partitions: the highest of their ends).
    end_offset: int


class PullSubscriptions:
    def __init__(self, control: ControlPlane, storage: Node) -> None:
        self._control = control
        self._storage = storage
        self._filters = Filters()

    def consumable(self, subscription: SubscriptionInfo) -> Consumable:
        """What receiving from the subscription consumes; InvalidParameterValue unless it
        is a pull subscription (the others are delivered by TideMQ itself)."""
        _check_pull(subscription, "received from")
        return Consumable(
            stream_id=subscription.topic_stream_id,
            subscription_id=subscription.id,
            partitions=subscription.topic_partitions,
            fifo=False,  # pull subscriptions are of standard topics only
            visibility_timeout_ms=subscription_attributes.visibility_timeout_ms(subscription),
            receive_wait_ms=0,
            retention_ms=None,
            redrive=subscription_attributes.pull_redrive(subscription),
            arn=subscription.arn,
            filter_policy=self._filters.policy(subscription),
        )

    @translated
    async def seek(
        self,
        subscription: SubscriptionInfo,
        *,
        offset: int | None = None,
        timestamp_ms: int | None = None,
    ) -> Sought:
        """Moves the subscription's cursor to `offset` (0 to the log's end), or to the
        first offset at or after `timestamp_ms`, and forgets what it had in flight."""
        _check_pull(subscription, "sought")
        if (offset is None) == (timestamp_ms is None):
            raise invalid_parameter("Seek to an offset or to a timestamp: give one of the two.")
        stream_id = subscription.topic_stream_id
        ends = await log_ends(self._storage, stream_id, subscription.topic_partitions)
        end = max(ends.values())
        if offset is not None:
            if not 0 <= offset <= end:
                raise invalid_parameter(
                    f"The offset {offset} is not in the topic's log: give 0 to {end} "
                    f"({end}: its end, where the next message will be)."
                )
            targets = {p: min(offset, partition_end) for p, partition_end in ends.items()}
        else:
            assert timestamp_ms is not None
            if timestamp_ms < 0:
                raise invalid_parameter("The timestamp must be milliseconds since the epoch.")
            targets = {
                p: await self._storage.offset_for_time(stream_id, p, timestamp_ms) for p in ends
            }
        await self._control.deliveries.seek(subscription.id, targets)
        try:
            await self._control.subscriptions.get(subscription.account_id, subscription.id)
        except NotFound:
            # Unsubscribed meanwhile: leave no state behind for a subscription that is gone.
            await self._control.deliveries.drop(subscription.id, subscription.topic_partitions)
            raise
        self._control.wakeups.notify(stream_id)
        return Sought(min(targets.values()), end)

    @translated
    async def stats(self, subscription: SubscriptionInfo) -> SubscriptionStats:
        """Approximate counts: past the cursor or visible again, in flight."""
        _check_pull(subscription, "counted")
        ends = await log_ends(
            self._storage, subscription.topic_stream_id, subscription.topic_partitions
        )
        return await self._control.deliveries.stats(subscription.id, ends)


def _check_pull(subscription: SubscriptionInfo, what: str) -> None:
    if subscription.protocol != PULL:
        raise CoreError(
            "InvalidParameterValue",
            f"Only pull subscriptions are {what}; this one is {subscription.protocol}, "
            "which TideMQ delivers itself.",
        )
