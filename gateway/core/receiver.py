"""Receiving: claim in Redis, read the bodies from the log, and settle what is not to be
handed out (expired, not yet due, received too often).

Every claimed message is checked against its record before it goes out:
- older than the queue's retention period (or gone from the log): removed and counted;
- delivery time not reached (a delay whose registration lost a race with this claim):
  turned back into a delay;
- a dead letter (received maxReceiveCount times): appended to the dead-letter queue's log
  with its original attributes and `DeadLetterQueueSourceArn`, then removed here. A crash
  between the two leaves it in both queues, never in neither (at-least-once).
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict

from control_plane.deliveries import Delivery, FifoEntry
from control_plane.errors import QueueDoesNotExist
from control_plane.plane import ControlPlane
from control_plane.queues import QueueInfo
from gateway import metrics
from gateway.core.messages import DEAD_LETTER_SOURCE, ReceivedMessage
from storage_nodes.node import MessageAttribute, Node, Record, RecordIn

log = logging.getLogger(__name__)

MAX_WAIT_MS = 20_000


async def log_ends(storage: Node, queue: QueueInfo) -> dict[int, int]:
    """The end offset of each of the queue's partitions."""
    if queue.partitions == 1:  # every queue so far: no task per partition
        return {0: await storage.end_offset(queue.stream_id, 0)}
    ends = await asyncio.gather(
        *(storage.end_offset(queue.stream_id, p) for p in range(queue.partitions))
    )
    return dict(enumerate(ends))


class Receiver:
    def __init__(self, control: ControlPlane, storage: Node) -> None:
        self._control = control
        self._storage = storage

    async def receive(
        self, queue: QueueInfo, max_messages: int, visibility_timeout_ms: int, wait_ms: int
    ) -> list[ReceivedMessage]:
        """Up to `max_messages` deliverable messages, waiting up to `wait_ms` for the first.

        Returns as soon as anything is deliverable: a send or a due timer wakes the wait,
        so a long poll costs nothing while the queue is idle.
        """
        clock = self._control.clock
        deadline_ms = clock.now_ms() + min(wait_ms, MAX_WAIT_MS)
        sid = queue.stream_id
        with self._control.wakeups.listen(sid) as wake:
            while True:
                received = await self._claim(queue, max_messages, visibility_timeout_ms)
                if received:
                    return received
                now_ms = clock.now_ms()
                if now_ms >= deadline_ms:
                    return []
                until_ms = deadline_ms
                next_due_ms = await self._control.deliveries.next_due_ms(sid)
                if next_due_ms is not None:
                    until_ms = min(until_ms, next_due_ms)
                await wake.wait(max(until_ms - now_ms, 0) / 1000)

    async def _claim(
        self, queue: QueueInfo, max_messages: int, visibility_timeout_ms: int
    ) -> list[ReceivedMessage]:
        deliveries = self._control.deliveries
        redrive = queue.settings.redrive
        dead_letter_queue = await self._dead_letter_queue(queue)
        claim = await deliveries.claim(
            queue.stream_id,
            await log_ends(self._storage, queue),
            max_messages,
            visibility_timeout_ms,
            max_receives=(redrive.max_receive_count if redrive and dead_letter_queue else 0),
            fifo=queue.fifo,
        )
        if not claim:
            return []
        records = await self._records(queue, claim.deliveries + claim.dead_letters)
        for dead in claim.dead_letters:
            assert dead_letter_queue is not None
            record = records.get((dead.partition, dead.offset))
            await self._dead_letter(queue, dead_letter_queue, dead, record)
        now_ms = self._control.clock.now_ms()
        retention_ms = queue.settings.retention_ms
        counters = metrics.queues.of(queue.account_id, queue.name)
        received = []
        received_bytes = 0
        for delivery in claim.deliveries:
            record = records.get((delivery.partition, delivery.offset))
            if record is None or record.timestamp_ms + retention_ms <= now_ms:
                await deliveries.remove(delivery, "expired")
                counters.expired.inc()
            elif delivery.receive_count == 1 and record.timestamp_ms + record.delay_ms > now_ms:
                await deliveries.defer(delivery, record.timestamp_ms + record.delay_ms)
            else:
                received.append(ReceivedMessage(record, delivery, queue.fifo))
                received_bytes += len(record.body)
        if received:
            counters.received.inc(len(received))
            counters.received_bytes.inc(received_bytes)
        return received

    async def _records(
        self, queue: QueueInfo, deliveries: list[Delivery]
    ) -> dict[tuple[int, int], Record]:
        """The claimed messages' records by (partition, offset), one read a partition."""
        by_partition: defaultdict[int, list[int]] = defaultdict(list)
        for delivery in deliveries:
            by_partition[delivery.partition].append(delivery.offset)
        records = {}
        for partition, offsets in by_partition.items():
            found = await self._storage.read_offsets(queue.stream_id, partition, offsets)
            records.update({(partition, offset): r for offset, r in found.items()})
        return records

    async def _dead_letter_queue(self, queue: QueueInfo) -> QueueInfo | None:
        redrive = queue.settings.redrive
        if redrive is None:
            return None
        try:
            return await self._control.queues.get(
                redrive.dead_letter_account_id, redrive.dead_letter_queue
            )
        except QueueDoesNotExist:
            # SQS keeps delivering while the dead-letter queue is missing; so do we.
            log.warning("queue %s: dead-letter queue %s is missing", queue.name, redrive)
            return None

    async def _dead_letter(
        self, queue: QueueInfo, target: QueueInfo, delivery: Delivery, record: Record | None
    ) -> None:
        if record is not None:
            moved = RecordIn(
                message_id=record.message_id,
                timestamp_ms=record.timestamp_ms,
                body=record.body,
                key=record.key,
                group_id=record.group_id,
                dedup_id=record.dedup_id,
                attributes=record.attributes,
                system_attributes={
                    **record.system_attributes,
                    DEAD_LETTER_SOURCE: MessageAttribute("String", queue.arn),
                },
            )
            offset = await self._storage.append(target.stream_id, 0, [moved])
            if target.fifo and record.group_id is not None:
                entry = FifoEntry(offset, record.group_id, None, record.message_id)
                await self._control.deliveries.register_fifo(target.stream_id, [entry], 0)
            self._control.wakeups.notify(target.stream_id)
        await self._control.deliveries.remove(delivery, "dead_lettered")
        metrics.queues.of(queue.account_id, queue.name).dead_lettered.inc()
