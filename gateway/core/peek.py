"""Peeking: a queue's next messages read from its log, without receiving them.

For an operator's eyes (the console): nothing is claimed, no receive count or
visibility changes. Per partition, the messages delivered or delayed and not yet
deleted come first (oldest first), then those never delivered, from the cursor on;
the first `max_messages` of them by send time are returned. Read without a lock: a
message received or deleted meanwhile may still show, as in SQS's console.
"""

from __future__ import annotations

from dataclasses import dataclass

from control_plane.plane import ControlPlane
from control_plane.queues import QueueInfo
from gateway.core.receiver import log_ends
from storage_nodes.node import Node, Record


@dataclass(frozen=True, slots=True)
class PeekedMessage:
    record: Record
    delivered: bool  # received (in flight or due again) or delayed; False: never delivered


async def peek(
    control: ControlPlane, storage: Node, queue: QueueInfo, max_messages: int
) -> list[PeekedMessage]:
    found: list[PeekedMessage] = []
    for partition, end in (await log_ends(storage, queue.stream_id, queue.partitions)).items():
        taken, cursor = await control.deliveries.undeleted(queue.stream_id, partition, max_messages)
        offsets = [offset for offset in taken if offset < cursor]
        offsets += range(cursor, min(end, cursor + max_messages - len(offsets)))
        records = await storage.read_offsets(queue.stream_id, partition, offsets)
        found += [PeekedMessage(records[o], o < cursor) for o in offsets if o in records]
    found.sort(key=lambda message: (message.record.timestamp_ms, message.record.offset))
    return found[:max_messages]
