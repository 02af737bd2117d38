"""The broker: queue operations composed from the control plane and the storage node.

Every API of the gateway (SQS JSON, REST, WebSocket) calls this one object, so they share
one meaning of send, receive and delete. A send is acknowledged only after the log made
it durable (and its delay is registered); a receive claims references in Redis, then
reads the bodies from the log (gateway.receiver).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from control_plane.deliveries import FifoEntry, SubscriptionStats
from control_plane.errors import ControlPlaneError, MessageNotInflight, PurgeQueueInProgress
from control_plane.plane import ControlPlane
from control_plane.queues import QueueInfo
from control_plane.receipts import Receipt
from gateway.message_ids import new_message_ids
from gateway.move_tasks import MoveTaskRunner
from gateway.receiver import DEAD_LETTER_SOURCE, ReceivedMessage, Receiver
from storage_nodes.log.record import MessageAttribute, Record, RecordIn
from storage_nodes.node import StorageNode

PURGE_INTERVAL_MS = 60_000


# Not frozen: one is made per message sent, and a frozen dataclass's __init__ (one
# object.__setattr__ per field) cost 2.5 times as much. Nothing changes one once made.
@dataclass(slots=True)
class NewMessage:
    body: bytes
    attributes: Mapping[str, MessageAttribute] = field(default_factory=dict, hash=False)
    system_attributes: Mapping[str, MessageAttribute] = field(default_factory=dict, hash=False)
    delay_ms: int | None = None  # None: the queue's DelaySeconds
    group_id: str | None = None  # FIFO queues: required
    dedup_id: str | None = None  # FIFO queues: or the body's SHA-256 (content-based)
    # False for a message moved back from a dead-letter queue: it must not be taken for
    # a duplicate of its own first send.
    deduplicate: bool = True


@dataclass(frozen=True, slots=True)
class SentMessage:
    """A sent message as the sender learns it: for a FIFO duplicate, the first send's."""

    message_id: str
    offset: int

    @property
    def sequence_number(self) -> str:
        """FIFO queues: increasing within the queue (the log offset, 20 digits)."""
        return f"{self.offset:020d}"


# Per entry of a batch: None for success, or the error of that entry alone.
EntryResults = list[ControlPlaneError | None]


class Broker:
    def __init__(self, control: ControlPlane, storage: StorageNode) -> None:
        self.control = control
        self.storage = storage
        self.receiver = Receiver(control, storage, self._log_ends)
        self.move_tasks = MoveTaskRunner(self)

    async def close(self) -> None:
        """Stops the background work this broker runs (message move tasks)."""
        await self.move_tasks.close()

    # -- queues -------------------------------------------------------------------------

    async def create_queue(
        self,
        account_id: str,
        name: str,
        attributes: Mapping[str, str],
        tags: Mapping[str, str] | None = None,
    ) -> QueueInfo:
        return await self.control.queues.create(account_id, name, attributes, tags)

    async def get_queue(self, account_id: str, name: str) -> QueueInfo:
        return await self.control.queues.get(account_id, name)

    async def list_queues(self, account_id: str, prefix: str = "") -> list[str]:
        return await self.control.queues.list_names(account_id, prefix)

    async def delete_queue(self, account_id: str, name: str) -> None:
        """Removes the queue, then its delivery state and its log."""
        queue = await self.control.queues.delete(account_id, name)
        await self.control.forget_stream(queue.stream_id, queue.partitions)
        await self.storage.drop_stream(queue.stream_id)

    async def purge_queue(self, queue: QueueInfo) -> None:
        """Deletes every message sent so far; at most once a minute, as in SQS."""
        purged = await self.control.deliveries.purge(
            queue.stream_id, await self._log_ends(queue), PURGE_INTERVAL_MS
        )
        if not purged:
            raise PurgeQueueInProgress(
                f"Only one PurgeQueue operation on {queue.name} is allowed every 60 seconds."
            )

    async def queue_stats(self, queue: QueueInfo) -> SubscriptionStats:
        return await self.control.deliveries.stats(
            queue.stream_id, await self._log_ends(queue), fifo=queue.fifo
        )

    # -- messages -----------------------------------------------------------------------

    async def send(self, queue: QueueInfo, messages: Sequence[NewMessage]) -> list[SentMessage]:
        """Appends the messages to the queue's log in one batch and registers their delays
        (FIFO: their groups); returns once they are durable."""
        now_ms = self.control.clock.now_ms()
        message_ids = new_message_ids(len(messages))
        queue_delay_ms = queue.delay_ms  # read once: a property parsing the attribute
        records = [
            RecordIn(
                message_id=message_ids[i],
                timestamp_ms=now_ms,
                body=message.body,
                group_id=message.group_id,
                dedup_id=message.dedup_id,
                attributes=message.attributes,
                system_attributes=message.system_attributes,
                delay_ms=queue_delay_ms if message.delay_ms is None else message.delay_ms,
            )
            for i, message in enumerate(messages)
        ]
        base = await self.storage.append(queue.stream_id, 0, records)
        if queue.fifo:
            return await self._register_fifo(queue, messages, records, base)
        if queue_delay_ms or any(m.delay_ms for m in messages):
            delayed: defaultdict[int, list[int]] = defaultdict(list)
            for i, record in enumerate(records):
                if record.delay_ms > 0:
                    delayed[now_ms + record.delay_ms].append(base + i)
            for due_ms, offsets in delayed.items():
                await self.control.deliveries.delay(queue.stream_id, 0, offsets, due_ms)
        self.control.wakeups.notify(queue.stream_id)
        return [SentMessage(message_id, base + i) for i, message_id in enumerate(message_ids)]

    async def _register_fifo(
        self,
        queue: QueueInfo,
        messages: Sequence[NewMessage],
        records: Sequence[RecordIn],
        base: int,
    ) -> list[SentMessage]:
        entries = []
        for i, (message, record) in enumerate(zip(messages, records, strict=True)):
            assert record.group_id is not None, "FIFO sends are checked to have a group"
            dedup = record.dedup_id
            if dedup is None and queue.content_based_deduplication:
                dedup = hashlib.sha256(record.body).hexdigest()
            if not message.deduplicate:
                dedup = None
            if dedup is not None and queue.dedup_per_group:
                dedup = f"{record.group_id}\0{dedup}"
            entries.append(FifoEntry(base + i, record.group_id, dedup, record.message_id))
        registered = await self.control.deliveries.register_fifo(
            queue.stream_id, entries, queue.delay_ms
        )
        self.control.wakeups.notify(queue.stream_id)
        return [SentMessage(r.message_id, r.offset) for r in registered]

    async def receive(
        self, queue: QueueInfo, max_messages: int, visibility_timeout_ms: int, wait_ms: int
    ) -> list[ReceivedMessage]:
        return await self.receiver.receive(queue, max_messages, visibility_timeout_ms, wait_ms)

    @staticmethod
    def resend(record: Record) -> NewMessage:
        """A dead-lettered message as it is sent back: as first sent, undelayed."""
        system = {k: v for k, v in record.system_attributes.items() if k != DEAD_LETTER_SOURCE}
        return NewMessage(
            body=record.body,
            attributes=record.attributes,
            system_attributes=system,
            delay_ms=0,
            group_id=record.group_id,
            dedup_id=record.dedup_id,
            deduplicate=False,
        )

    async def delete_messages(
        self, queue: QueueInfo, receipt_handles: Sequence[str]
    ) -> EntryResults:
        """Deletes the deliveries the receipts name, in one script call. A stale receipt
        (the message was received again since) succeeds and deletes nothing, as in SQS."""
        results, receipts = self._verify(queue, receipt_handles)
        deleted = await self.control.deliveries.delete([r for _, r in receipts])
        if queue.fifo and any(deleted):
            # The next messages of the groups may be waiting for these.
            self.control.wakeups.notify(queue.stream_id)
        return results

    async def change_visibility(
        self, queue: QueueInfo, changes: Sequence[tuple[str, int]]
    ) -> EntryResults:
        """Per (receipt handle, visibility timeout ms). MessageNotInflight where the
        receipt does not name the message's current in-flight delivery."""
        results, receipts = self._verify(queue, [handle for handle, _ in changes])
        changed = await self.control.deliveries.change_visibility(
            [(receipt, changes[i][1]) for i, receipt in receipts]
        )
        for (i, _), ok in zip(receipts, changed, strict=True):
            if not ok:
                results[i] = MessageNotInflight(
                    "Message does not exist or is not available for visibility timeout change."
                )
        if any(changes[i][1] == 0 for i, _ in receipts):
            self.control.wakeups.notify(queue.stream_id)
        return results

    def _verify(
        self, queue: QueueInfo, handles: Sequence[str]
    ) -> tuple[EntryResults, list[tuple[int, Receipt]]]:
        results: EntryResults = [None] * len(handles)
        receipts = []
        for i, handle in enumerate(handles):
            try:
                receipts.append((i, self.control.deliveries.verify(queue.stream_id, handle)))
            except ControlPlaneError as exc:
                results[i] = exc
        return results, receipts

    async def _log_ends(self, queue: QueueInfo) -> dict[int, int]:
        if queue.partitions == 1:  # every queue so far: no task per partition
            return {0: await self.storage.end_offset(queue.stream_id, 0)}
        ends = await asyncio.gather(
            *(self.storage.end_offset(queue.stream_id, p) for p in range(queue.partitions))
        )
        return dict(enumerate(ends))
