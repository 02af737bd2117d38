"""The broker: queue operations composed from the control plane and the storage node.

Every API of the gateway (SQS JSON, REST, WebSocket) calls this one object, so they share
one meaning of send, receive and delete. A send is acknowledged only after the log made
it durable; a receive claims references in Redis, then reads the bodies from the log.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from control_plane.deliveries import Delivery, SubscriptionStats
from control_plane.plane import ControlPlane
from control_plane.queues import QueueInfo
from storage_nodes.log.record import MessageAttribute, Record, RecordIn
from storage_nodes.node import StorageNode

log = logging.getLogger(__name__)

MAX_WAIT_MS = 20_000


@dataclass(frozen=True, slots=True)
class NewMessage:
    body: bytes
    attributes: Mapping[str, MessageAttribute] = field(default_factory=dict, hash=False)
    system_attributes: Mapping[str, MessageAttribute] = field(default_factory=dict, hash=False)


@dataclass(frozen=True, slots=True)
class SentMessage:
    message_id: str
    offset: int


@dataclass(frozen=True, slots=True)
class ReceivedMessage:
    record: Record
    delivery: Delivery


class Broker:
    def __init__(self, control: ControlPlane, storage: StorageNode) -> None:
        self.control = control
        self.storage = storage

    async def create_queue(
        self, account_id: str, name: str, attributes: Mapping[str, str]
    ) -> QueueInfo:
        return await self.control.queues.create(account_id, name, attributes)

    async def get_queue(self, account_id: str, name: str) -> QueueInfo:
        return await self.control.queues.get(account_id, name)

    async def list_queues(self, account_id: str, prefix: str = "") -> list[str]:
        return await self.control.queues.list_names(account_id, prefix)

    async def delete_queue(self, account_id: str, name: str) -> None:
        """Removes the queue, then its delivery state and its log."""
        queue = await self.control.queues.delete(account_id, name)
        await self.control.forget_stream(queue.stream_id)
        await self.storage.drop_stream(queue.stream_id)

    async def send(self, queue: QueueInfo, messages: Sequence[NewMessage]) -> list[SentMessage]:
        """Appends the messages to the queue's log; returns once they are durable."""
        now_ms = self.control.clock.now_ms()
        records = [
            RecordIn(
                message_id=str(uuid.uuid4()),
                timestamp_ms=now_ms,
                body=message.body,
                attributes=message.attributes,
                system_attributes=message.system_attributes,
            )
            for message in messages
        ]
        base = await self.storage.append(queue.stream_id, 0, records)
        self.control.wakeups.notify(queue.stream_id)
        return [SentMessage(r.message_id, base + i) for i, r in enumerate(records)]

    async def receive(
        self,
        queue: QueueInfo,
        max_messages: int,
        visibility_timeout_ms: int,
        wait_ms: int,
    ) -> list[ReceivedMessage]:
        """Up to `max_messages` deliverable messages, waiting up to `wait_ms` for the first.

        Returns as soon as anything is deliverable: an append or a due timer wakes the
        wait, so a long poll costs nothing while the queue is idle.
        """
        clock = self.control.clock
        deadline_ms = clock.now_ms() + min(wait_ms, MAX_WAIT_MS)
        sid = queue.stream_id
        with self.control.wakeups.listen(sid) as wake:
            while True:
                received = await self._claim(queue, max_messages, visibility_timeout_ms)
                if received:
                    return received
                now_ms = clock.now_ms()
                if now_ms >= deadline_ms:
                    return []
                until_ms = deadline_ms
                next_due_ms = await self.control.deliveries.next_due_ms(sid)
                if next_due_ms is not None:
                    until_ms = min(until_ms, next_due_ms)
                await wake.wait(max(until_ms - now_ms, 0) / 1000)

    async def delete_message(self, queue: QueueInfo, receipt_handle: str) -> None:
        """Deletes the delivery a receipt names. A stale receipt (the message was received
        again since) succeeds and deletes nothing, as in SQS.
        """
        receipt = self.control.deliveries.verify(queue.stream_id, receipt_handle)
        await self.control.deliveries.delete(receipt)

    async def change_visibility(
        self, queue: QueueInfo, receipt_handle: str, visibility_timeout_ms: int
    ) -> bool:
        """False if the receipt does not name the message's current in-flight delivery."""
        receipt = self.control.deliveries.verify(queue.stream_id, receipt_handle)
        changed = await self.control.deliveries.change_visibility(receipt, visibility_timeout_ms)
        if changed and visibility_timeout_ms == 0:
            self.control.wakeups.notify(queue.stream_id)
        return changed

    async def queue_stats(self, queue: QueueInfo) -> SubscriptionStats:
        return await self.control.deliveries.stats(queue.stream_id, await self._log_ends(queue))

    async def _log_ends(self, queue: QueueInfo) -> dict[int, int]:
        ends = await asyncio.gather(
            *(self.storage.end_offset(queue.stream_id, p) for p in range(queue.partitions))
        )
        return dict(enumerate(ends))

    async def _claim(
        self, queue: QueueInfo, max_messages: int, visibility_timeout_ms: int
    ) -> list[ReceivedMessage]:
        sid = queue.stream_id
        deliveries = await self.control.deliveries.claim(
            sid, await self._log_ends(queue), max_messages, visibility_timeout_ms
        )
        if not deliveries:
            return []
        records = await self.storage.read_offsets(sid, 0, [d.offset for d in deliveries])
        received = []
        for delivery in deliveries:
            record = records.get(delivery.offset)
            if record is None:
                # Below the log's start (removed by retention): nothing left to deliver.
                log.warning("queue %s: offset %d is gone from the log", queue.name, delivery.offset)
                continue
            received.append(ReceivedMessage(record, delivery))
        return received
