"""Delivery of pushed subscriptions (SQS queues, webhooks), behind the publishers.

Every gateway runs one dispatcher. It reads the registry of pushed subscriptions
(control_plane/subscriptions.py) every RECONCILE_S and keeps one task per subscription.

A subscription to a queue is delivered in log order: its task holds the subscription's
dispatcher lease (control_plane/dispatch_cursors.py; one gateway at a time), reads a
batch from its cursor, sends what passes the filter policy into the queue in one
append, and only then moves the cursor. A crash in between delivers that batch again
(at least once; a FIFO queue drops the repeat by its deduplication id). A transient
failure (Redis, the node) retries the same batch after a pause, so nothing is skipped.

Dispatch never blocks a publish: publishers append to the topic's log and return; each
subscription's task follows the log at its own pace, woken by the appends, and while
clients publish the rounds are paced so that publishing keeps most of the gateway's time
(gateway/core/dispatch_governor.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets

from control_plane.arns import parse_queue_arn
from control_plane.dispatch_cursors import DispatchCursors
from control_plane.errors import ControlPlaneError, NotFound, QueueDoesNotExist
from control_plane.plane import ControlPlane
from control_plane.queue_policy import allows
from control_plane.queues import QueueInfo
from control_plane.subscriptions import SubscriptionInfo
from control_plane.topics import TopicInfo
from gateway.core import fanout
from gateway.core.dispatch_governor import DispatchGovernor
from gateway.core.envelopes import Envelopes
from gateway.core.messages import NewMessage
from gateway.core.publisher import dedup_key
from gateway.core.receiver import served_log_ends
from gateway.core.sender import Sender
from gateway.core.subscription_attributes import redrive_target
from gateway.core.webhook_delivery import WebhookDelivery
from gateway.core.webhooks import Webhooks
from storage_nodes.node import Node, NodeError, PartitionDown, Record

log = logging.getLogger(__name__)

RECONCILE_S = 1.0
LEASE_TTL_MS = 15_000
# Records a queue subscription takes per round: one append into the queue each.
BATCH_RECORDS = 500
IDLE_WAIT_S = 1.0
RETRY_PAUSE_S = 1.0
# How long a registry entry may name no subscription (a subscribe under way) before it
# is taken for the trace of a crash and dropped.
ORPHAN_GRACE_S = 10.0


class Dispatcher:
    def __init__(
        self,
        control: ControlPlane,
        storage: Node,
        sender: Sender,
        envelopes: Envelopes,
        governor: DispatchGovernor,
    ) -> None:
        self._control = control
        self._storage = storage
        self._sender = sender
        self._envelopes = envelopes
        self._governor = governor
        self._cursors = DispatchCursors(control.redis)
        self._owner = secrets.token_hex(8)
        self._filters = fanout.Filters()
        self._webhooks = Webhooks()
        self._webhook_delivery = WebhookDelivery(
            control,
            storage,
            envelopes=envelopes,
            webhooks=self._webhooks,
            filters=self._filters,
            dead_letter=self.dead_letter,
        )
        self._tasks: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._reconciler: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._reconciler = asyncio.create_task(self._reconcile_forever())

    async def close(self) -> None:
        tasks = list(self._tasks.values())
        if self._reconciler is not None:
            tasks.append(self._reconciler)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for _, subscription_id in self._tasks:
            with contextlib.suppress(ControlPlaneError):
                await self._cursors.release(subscription_id, self._owner)
        self._tasks.clear()
        await self._webhooks.close()

    async def _reconcile_forever(self) -> None:
        while True:
            try:
                await self._reconcile()
            except ControlPlaneError as exc:
                log.warning("dispatcher: cannot list subscriptions: %s", exc)
            await asyncio.sleep(RECONCILE_S)

    async def _reconcile(self) -> None:
        wanted = set(await self._control.subscriptions.pushed())
        for key, task in list(self._tasks.items()):
            if task.done() and not task.cancelled() and task.exception() is not None:
                # A fault of ours: logged, and the subscription's task starts again below
                # from its cursor (nothing is skipped).
                log.error(
                    "subscription %s: delivery failed; restarting it",
                    key[1],
                    exc_info=task.exception(),
                )
            if key not in wanted or task.done():
                task.cancel()
                del self._tasks[key]
        for key in wanted - set(self._tasks):
            self._tasks[key] = asyncio.create_task(self._run(*key), name=f"dispatch {key[1]}")

    async def _run(self, account_id: str, subscription_id: str) -> None:
        subscription = await self._subscription(account_id, subscription_id)
        if subscription is None:
            return
        if subscription.protocol == "sqs":
            await self._deliver_to_queue(subscription)
            return
        while True:
            try:
                await self._webhook_delivery.run(subscription)
                return
            except (ControlPlaneError, NodeError) as exc:
                log.warning("subscription %s: delivery paused: %s", subscription.arn, exc)
                await asyncio.sleep(RETRY_PAUSE_S)

    async def _subscription(self, account_id: str, subscription_id: str) -> SubscriptionInfo | None:
        """The subscription; None once it is gone for good (its registry entry dropped)."""
        try:
            return await self._control.subscriptions.get(account_id, subscription_id)
        except NotFound:
            await asyncio.sleep(ORPHAN_GRACE_S)
        try:
            return await self._control.subscriptions.get(account_id, subscription_id)
        except NotFound:
            await self._control.subscriptions.forget_pushed(account_id, subscription_id)
            return None

    # -- queues ---------------------------------------------------------------------------

    async def _deliver_to_queue(self, first: SubscriptionInfo) -> None:
        stream_id = first.topic_stream_id
        with self._control.wakeups.listen(stream_id) as wake:
            while True:
                try:
                    subscription = await self._control.subscriptions.get(first.account_id, first.id)
                    if not await self._cursors.hold(subscription.id, self._owner, LEASE_TTL_MS):
                        await asyncio.sleep(LEASE_TTL_MS / 3000)
                        continue
                    async with self._governor.round():
                        delivered = await self._queue_round(subscription)
                    if not delivered:
                        await wake.wait(IDLE_WAIT_S)
                except NotFound:
                    return  # unsubscribed, or its topic deleted
                except (ControlPlaneError, NodeError) as exc:
                    log.warning("subscription %s: delivery paused: %s", first.arn, exc)
                    await asyncio.sleep(RETRY_PAUSE_S)

    async def _queue_round(self, subscription: SubscriptionInfo) -> bool:
        """Delivers the next batch of each partition that has one; False when there was
        nothing to deliver. Each partition is delivered in its log's order, so a FIFO
        topic's groups (each in one partition) keep theirs."""
        stream_id = subscription.topic_stream_id
        partitions = subscription.topic_partitions
        ends = await served_log_ends(self._storage, stream_id, partitions)
        delivered = False
        for partition, end in ends.items():
            position = await self._cursors.position(subscription.id, partition)
            if position >= end:
                continue
            offsets = range(position, min(end, position + BATCH_RECORDS))
            try:
                found = await self._storage.read_offsets(
                    stream_id, partition, offsets, wait=partitions == 1
                )
            except PartitionDown:
                continue  # its node is down: the other partitions go on, it waits its turn
            upto = await self._available_upto(stream_id, partition, offsets, found)
            if upto == position:
                continue  # its next record is unavailable for now: tried again next round
            topic = await self._control.topics.get(subscription.account_id, subscription.topic_name)
            readable = [found[o] for o in sorted(found) if o < upto]
            records = await self._first_sends(topic, partition, readable)
            records = [r for r in records if self._filters.matches(subscription, r)]
            if records:
                await self._send_to_queue(subscription, topic, records)
            await self._cursors.advance(subscription.id, self._owner, partition, position, upto)
            delivered = True
        return delivered

    async def _available_upto(
        self, stream_id: str, partition: int, offsets: range, found: dict[int, Record]
    ) -> int:
        """Where the subscription may move its cursor to: the end of `offsets`, or the
        first of them whose record is unavailable for now (on the un-archived tail of a
        node that failed: docs/cluster.md), which must not be passed over as gone."""
        if len(found) == len(offsets):
            return offsets.stop
        missing = [o for o in offsets if o not in found]
        absence = await self._storage.absent(stream_id, partition, missing)
        return min(absence.unavailable, default=offsets.stop)

    async def _first_sends(
        self, topic: TopicInfo, partition: int, records: list[Record]
    ) -> list[Record]:
        """FIFO topics: the records (of one partition) that are not repeats of an earlier
        publish with the same deduplication id (a repeat is in the log, but was answered
        as the first)."""
        if not topic.fifo or not records:
            return records
        keys = [dedup_key(topic, r.group_id, r.dedup_id) for r in records]
        firsts = await self._control.deliveries.first_sends(topic.stream_id, keys)
        return [
            r
            for r, first in zip(records, firsts, strict=True)
            if first in (None, (partition, r.offset))
        ]

    async def _send_to_queue(
        self, subscription: SubscriptionInfo, topic: TopicInfo, records: list[Record]
    ) -> None:
        target = await self._queue(subscription.endpoint, topic)
        if target is None:
            log.warning(
                "subscription %s: queue %s does not exist, or its policy does not let the "
                "topic's account send to it",
                subscription.arn,
                subscription.endpoint,
            )
            await self.dead_letter(subscription, topic, records)
            return
        await self._send(target, subscription, topic, records)

    async def dead_letter(
        self, subscription: SubscriptionInfo, topic: TopicInfo, records: list[Record]
    ) -> None:
        """Sends messages the subscription could not deliver to its dead-letter queue
        (RedrivePolicy), as it would have delivered them; without one they are dropped."""
        target = await self._dead_letter_queue(subscription, topic)
        if target is None:
            log.warning(
                "subscription %s: %d messages dropped (no dead-letter queue)",
                subscription.arn,
                len(records),
            )
            return
        await self._send(target, subscription, topic, records)

    async def _send(
        self,
        target: QueueInfo,
        subscription: SubscriptionInfo,
        topic: TopicInfo,
        records: list[Record],
    ) -> None:
        messages: list[NewMessage] = [
            fanout.queue_message(self._envelopes, topic, subscription, r, fifo_queue=target.fifo)
            for r in records
        ]
        await self._sender.send(target, messages)

    async def _queue(self, arn: str | None, topic: TopicInfo) -> QueueInfo | None:
        """The queue an ARN names, if the topic's account may send to it: its own queues,
        and another account's whose policy grants it SendMessage (as SQS requires of
        SNS); None otherwise."""
        parsed = parse_queue_arn(arn) if arn else None
        if parsed is None:
            return None
        try:
            queue = await self._control.queues.get(*parsed)
        except QueueDoesNotExist:
            return None
        if queue.account_id != topic.account_id and not allows(
            queue.settings.policy, topic.account_id, "SendMessage"
        ):
            return None
        return queue

    async def _dead_letter_queue(
        self, subscription: SubscriptionInfo, topic: TopicInfo
    ) -> QueueInfo | None:
        return await self._queue(redrive_target(subscription), topic)
