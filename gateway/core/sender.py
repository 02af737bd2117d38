"""Sending: append to the log, then register delays (FIFO: groups and deduplication).

A send is acknowledged only after the log made its batch durable (under the stream's
durability policy) and the control plane knows what it must (delays; FIFO groups and
deduplication ids, where a duplicate gets the first send's id and sequence number).
Then long polls are woken, here and, over Redis pub/sub, in other gateway processes.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import defaultdict
from collections.abc import Sequence

from control_plane.deliveries import FifoEntry, Registered
from control_plane.plane import ControlPlane
from control_plane.queues import QueueInfo
from gateway import metrics
from gateway.core import digests, partitioning
from gateway.core.messages import NewMessage, SentMessage
from gateway.message_ids import new_message_ids
from storage_nodes.node import Node, RecordIn


class Sender:
    def __init__(self, control: ControlPlane, storage: Node) -> None:
        self._control = control
        self._storage = storage

    async def send(self, queue: QueueInfo, messages: Sequence[NewMessage]) -> list[SentMessage]:
        """Appends checked messages to the queue's log and registers their delays (FIFO:
        their groups); returns once they are durable. A standard queue's batch is one
        append to one partition, one that is not down; a FIFO queue's, one append per
        partition its groups map to, down or not (gateway/core/partitioning.py)."""
        now_ms = self._control.clock.now_ms()
        message_ids = new_message_ids(len(messages))
        queue_delay_ms = queue.settings.delay_ms
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
                # Hashed once: for the send's answer, and kept with the record for the
                # receives served from the log's tail cache.
                body_md5=digests.md5_hex(message.body),
            )
            for i, message in enumerate(messages)
        ]
        if queue.fifo:
            places = await self._append_by_group(queue, records)
        else:
            partition, base = await partitioning.append_anywhere(
                self._storage, queue.stream_id, queue.partitions, records, queue.replication
            )
            places = [(partition, base + i) for i in range(len(records))]
        counters = metrics.queues.of(queue.account_id, queue.name)
        counters.sent.inc(len(records))
        counters.sent_bytes.inc(sum(len(record.body) for record in records))
        if queue.fifo:
            registered = await self._register_fifo(queue, messages, records, places)
            self._control.wakeups.notify(queue.stream_id)
            return [
                _sent(
                    message,
                    record,
                    r.message_id,
                    partitioning.sequence_number(r.partition, r.offset, queue.partitions),
                )
                for message, record, r in zip(messages, records, registered, strict=True)
            ]
        if queue_delay_ms or any(m.delay_ms for m in messages):
            await self._delay(queue, records, places, now_ms)
        self._control.wakeups.notify(queue.stream_id)
        return [
            _sent(message, record, record.message_id, None)
            for message, record in zip(messages, records, strict=True)
        ]

    async def _append_by_group(
        self, queue: QueueInfo, records: Sequence[RecordIn]
    ) -> list[tuple[int, int]]:
        """Appends each record to its group's partition, one append per partition (in
        the batch's order within each); the (partition, offset) of each record."""
        by_partition: defaultdict[int, list[int]] = defaultdict(list)
        for i, record in enumerate(records):
            assert record.group_id is not None, "FIFO sends are checked to have a group"
            by_partition[partitioning.group_partition(record.group_id, queue.partitions)].append(i)
        places: list[tuple[int, int]] = [(0, 0)] * len(records)

        async def append(partition: int, indexes: list[int]) -> None:
            base = await self._storage.append(
                queue.stream_id,
                partition,
                [records[i] for i in indexes],
                replication=queue.replication,
            )
            for k, i in enumerate(indexes):
                places[i] = (partition, base + k)

        if len(by_partition) == 1:
            await append(*next(iter(by_partition.items())))
        else:
            await asyncio.gather(*(append(p, indexes) for p, indexes in by_partition.items()))
        return places

    async def _delay(
        self,
        queue: QueueInfo,
        records: Sequence[RecordIn],
        places: Sequence[tuple[int, int]],
        now_ms: int,
    ) -> None:
        delayed: defaultdict[tuple[int, int], list[int]] = defaultdict(list)
        for record, (partition, offset) in zip(records, places, strict=True):
            if record.delay_ms > 0:
                delayed[(partition, now_ms + record.delay_ms)].append(offset)
        for (partition, due_ms), offsets in delayed.items():
            await self._control.deliveries.delay(queue.stream_id, partition, offsets, due_ms)

    async def _register_fifo(
        self,
        queue: QueueInfo,
        messages: Sequence[NewMessage],
        records: Sequence[RecordIn],
        places: Sequence[tuple[int, int]],
    ) -> list[Registered]:
        settings = queue.settings
        entries = []
        for message, record, (partition, offset) in zip(messages, records, places, strict=True):
            assert record.group_id is not None, "FIFO sends are checked to have a group"
            dedup = record.dedup_id
            if dedup is None and settings.content_based_deduplication:
                dedup = hashlib.sha256(record.body).hexdigest()
            if not message.deduplicate:
                dedup = None
            if dedup is not None and settings.dedup_per_group:
                dedup = f"{record.group_id}\0{dedup}"
            entries.append(FifoEntry(offset, record.group_id, dedup, record.message_id, partition))
        return await self._control.deliveries.register_fifo(
            queue.stream_id, entries, settings.delay_ms
        )


def _sent(
    message: NewMessage, record: RecordIn, message_id: str, sequence_number: str | None
) -> SentMessage:
    # Positionally: one a message sent.
    return SentMessage(
        message_id,
        digests.md5_of_body(record),
        digests.md5_of_attributes(message.attributes) if message.attributes else None,
        digests.md5_of_attributes(message.system_attributes) if message.system_attributes else None,
        sequence_number,
    )
