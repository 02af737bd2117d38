"""Which partition of a queue's or a topic's log a message goes to, and the sequence
numbers FIFO messages are known by.

- **Standard** queues and topics: each batch (one SendMessage, SendMessageBatch or
  Publish call) goes whole to one partition picked at random. Per batch, so that a batch
  stays one append (one fsync, one offset range, one node); at random rather than
  round-robin because a choice with no state is the same in every gateway process and
  has no pathological interleavings (a process-wide round-robin counter shared by two
  queues sent to in turn would put all of one queue's batches in the same partitions).
  Over many batches the spread is even; a receive takes from every partition anyway.
  Partitions the node layer knows to be down (their node unreachable: `Node.
  partitions_down`) are passed over, and a batch whose partition turns out to be down
  before anything of it was written goes at once to another (`append_anywhere`), as
  Kafka's producers place keyless records among the partitions that are available. Only
  when every partition is down does a batch wait for its own.
- **FIFO** queues and topics: a message group always goes to the same partition, chosen
  by a stable hash of the group id (CRC-32, the same in every process and release), so
  the group's messages keep their order in one log. A batch with several groups is split
  into one append per partition. A group's partition is waited for while it is down:
  order matters more than availability.

The partition count of a queue or topic is fixed at creation (its `Partitions`
attribute), so a group never moves.

Sequence numbers: a FIFO message's is `offset * partitions + partition`, 20 digits. With
one partition that is the offset, as before partitions existed; with several it is still
unique in the queue and rises within a group (one partition, rising offsets), which is
what SQS promises of it.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Mapping, Sequence

from control_plane.queue_attributes import PARTITION_COUNT, PARTITIONS
from gateway import metrics
from gateway.core.errors import CoreError
from storage_nodes.node import Node, PartitionDown, RecordIn, Replication

MAX_PARTITIONS = PARTITION_COUNT.high


def group_partition(group_id: str, partitions: int) -> int:
    """The partition a FIFO message group's messages go to."""
    if partitions == 1:
        return 0
    return zlib.crc32(group_id.encode()) % partitions


def batch_partition(partitions: int) -> int:
    """The partition a batch of a standard queue or topic goes to."""
    if partitions == 1:
        return 0
    return random.randrange(partitions)


async def append_anywhere(
    storage: Node,
    stream_id: str,
    partitions: int,
    records: Sequence[RecordIn],
    replication: Replication,
) -> tuple[int, int]:
    """Appends a standard queue's or topic's batch to one partition, at random among
    those not down, trying the next at once when one turns out to be down (nothing was
    written there); (partition, first offset). The last candidate is waited for."""
    if partitions == 1:
        return 0, await storage.append(stream_id, 0, records, replication=replication)
    down = storage.partitions_down(stream_id, partitions)
    candidates = [p for p in range(partitions) if p not in down]
    random.shuffle(candidates)
    while len(candidates) > 1:
        partition = candidates.pop()
        try:
            offset = await storage.append(
                stream_id, partition, records, replication=replication, wait=False
            )
        except PartitionDown:
            metrics.PARTITIONS_PASSED_OVER.inc()
            continue
        return partition, offset
    partition = candidates[0] if candidates else batch_partition(partitions)
    return partition, await storage.append(stream_id, partition, records, replication=replication)


def sequence_number(partition: int, offset: int, partitions: int) -> str:
    """The SequenceNumber of the FIFO message at (partition, offset)."""
    return f"{offset * partitions + partition:020d}"


def with_partitions(
    attributes: Mapping[str, str], partitions: int | None, error_code: str
) -> dict[str, str]:
    """A create's attributes with the native APIs' `partitions` field as the `Partitions`
    attribute; the two given with different values are refused (`error_code`)."""
    merged = dict(attributes)
    if partitions is None:
        return merged
    given = merged.get(PARTITIONS)
    if given is not None and given.strip() != str(partitions):
        raise CoreError(
            error_code,
            f"partitions ({partitions}) and the attribute {PARTITIONS} ({given}) differ: "
            "give one of the two.",
        )
    merged[PARTITIONS] = str(partitions)
    return merged
