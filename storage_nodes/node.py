"""The storage node's interface: what a gateway may ask of the node serving a partition.

A gateway calls these methods and nothing else of `storage_nodes`: in the embedded
launcher on a `LocalNode` in its own process (storage_nodes/local_node.py), and, with the
cluster, on a client speaking the same operations to a node over the network. The
record types a gateway writes and reads are re-exported here, so this module is the
whole vocabulary between the two.

Errors: a node raises `NodeError`s: `StreamDropped` (a request that raced its stream's
deletion), `StorageUnavailable` (its disk failed: full, say), `DiskBudgetExceeded`
(appends refused until tiering frees local disk) and `ArchiveUnavailable` (a read of
archived records while the object store is down). A node reached over the network
(storage_nodes/wire) also raises `NotOwner` (it does not hold the partition's lease, so
it refused the request before doing anything) and `NodeUnreachable` (no answer). A
request made with `wait=False` raises `PartitionDown` instead of waiting for a partition
that no node serves now, and only when the request certainly was not carried out.

    NodeError
    ├── StreamDropped
    ├── StorageUnavailable
    ├── DiskBudgetExceeded
    ├── ArchiveUnavailable
    ├── NotOwner
    ├── NodeUnreachable        .sent: the request may have reached the node
    └── PartitionDown          nothing was done: an append may go to another partition

Availability: `partitions_down` names the partitions of a stream known not to be served
right now (their node unreachable, or no live node serving them), without asking
anything: a standard queue sends elsewhere, a receive leaves them out for now. A node in
the gateway's own process (`tidemq up`) is never down, and names none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from storage_nodes.archive.tiering import TieringStatus
from storage_nodes.log.record import MessageAttribute, Record, RecordIn

__all__ = [
    "REPLICATION_MODES",
    "Absence",
    "ArchiveUnavailable",
    "DiskBudgetExceeded",
    "MessageAttribute",
    "Node",
    "NodeError",
    "NodeUnreachable",
    "NotOwner",
    "PartitionDown",
    "Record",
    "RecordIn",
    "Replication",
    "StorageUnavailable",
    "StreamDescriptor",
    "StreamDropped",
    "TieringStatus",
]


# How a stream's un-archived tail is kept until it is tiered (docs/durability.md): on the
# owner's disk only (`none`), also on a follower node's disk (`replica`), or also in the
# object store (`object`), before an append is acknowledged. Each append names its
# stream's; a node of a cluster acts on it, a LocalNode of `tidemq up` (no other node,
# no failover) keeps its log as `none` does.
Replication = Literal["none", "replica", "object"]
REPLICATION_MODES: tuple[Replication, ...] = ("none", "replica", "object")


class NodeError(Exception):
    """Base of the errors a node raises on purpose."""


class StreamDropped(NodeError):
    """The stream was dropped (its queue deleted): it is not opened again. Stream ids are
    never reused, so a use of one after its drop is a request that raced the deletion."""


class StorageUnavailable(NodeError):
    """The node's disk failed a write or a read (full, say): worth trying again later."""


class DiskBudgetExceeded(NodeError):
    """The node's local segments fill its disk budget: appends wait for tiering."""


class ArchiveUnavailable(NodeError):
    """Archived records were asked for while the object store cannot be reached."""


class NotOwner(NodeError):
    """The node does not hold the partition's lease as current, or holds a later tenure
    than the request names: it refused the request and wrote nothing. Whoever routed it
    there looks the lease holder up again."""


class NodeUnreachable(NodeError):
    """The node could not be reached, or did not answer in time.

    `sent` is False when the request certainly never reached the node (the connection
    could not be made): trying it elsewhere is safe. True when it may have arrived, so an
    append may have been applied: only the same node can tell (by its producer sequence).
    """

    def __init__(self, message: str, *, sent: bool) -> None:
        super().__init__(message)
        self.sent = sent


class PartitionDown(NodeError):
    """The partition cannot be served now (its node cannot be reached, or no live node
    serves it), and the request, made with `wait=False`, was not carried out: an append
    was certainly not written, so it may go to another partition of the stream at once."""


@dataclass(frozen=True, slots=True)
class Absence:
    """Why offsets a read did not return are absent (the rest are gone for good:
    removed by retention, or below the partition's start)."""

    # The record exists but cannot be read now: it is on the un-archived tail of a node
    # that failed, not recovered yet (or was recovered since the read): read it later.
    unavailable: frozenset[int] = frozenset()
    # No record was ever given these offsets: an ownership change skipped them
    # (docs/cluster.md, "Offsets after a failover").
    never_written: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class StreamDescriptor:
    """What a stream is, for the archive's readers (docs/formats.md, "stream.json")."""

    stream_id: str
    account_id: str
    kind: Literal["queue", "topic"]
    name: str
    partitions: int
    created_ms: int


class Node(Protocol):
    """Partitioned logs of streams, addressed by (stream id, partition)."""

    async def create_stream(self, descriptor: StreamDescriptor) -> None:
        """Records what the stream is (idempotent); its partitions open on first use."""
        ...

    async def append(
        self,
        stream_id: str,
        partition: int,
        records: Sequence[RecordIn],
        *,
        replication: Replication = "none",
        wait: bool = True,
    ) -> int:
        """Appends durably (per the log's policy, and copied as `replication` says
        where the node has copies to make); returns the first record's offset.

        `wait` False: where the partition is down and the append certainly was not
        written, raise PartitionDown at once rather than wait for a node to serve it
        (an append that may have been written is still waited for, never repeated
        elsewhere)."""
        ...

    async def read_offsets(
        self, stream_id: str, partition: int, offsets: Sequence[int], *, wait: bool = True
    ) -> dict[int, Record]:
        """The records at these offsets that the partition holds, locally or archived.
        `wait` False: PartitionDown rather than a wait while the partition is down."""
        ...

    async def absent(self, stream_id: str, partition: int, offsets: Sequence[int]) -> Absence:
        """Of `offsets` that `read_offsets` did not return, which are only unavailable
        for now and which were never written (offsets are not dense across failovers)."""
        ...

    async def end_offset(self, stream_id: str, partition: int, *, wait: bool = True) -> int:
        """The next offset the partition will assign: every offset below it is durable.
        `wait` False: PartitionDown rather than a wait while the partition is down."""
        ...

    def partitions_down(self, stream_id: str, partitions: int) -> frozenset[int]:
        """Which of the stream's `partitions` are known not to be served now, from what
        the node already knows (no request is made)."""
        ...

    async def offset_for_time(self, stream_id: str, partition: int, timestamp_ms: int) -> int:
        """The first offset whose record's timestamp is at or after `timestamp_ms`, locally
        or archived; the end offset if no record is that recent."""
        ...

    async def drop_stream(self, stream_id: str) -> None:
        """Deletes every partition of a stream; later uses of it raise StreamDropped. Its
        archive is marked deleted and removed after a grace period."""
        ...

    async def tiering_status(self, stream_id: str, partition: int) -> TieringStatus | None:
        """What the archive holds of the partition; None where the node has no archive."""
        ...

    def problem(self) -> str | None:
        """Why the node cannot take writes now (its disk failed and is still full, or its
        disk budget is full until tiering frees space), for readiness checks; None when
        it can."""
        ...

    async def close(self) -> None: ...
