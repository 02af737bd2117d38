"""The storage node's interface: what a gateway may ask of the node serving a partition.

A gateway calls these methods and nothing else of `storage_nodes`: in the embedded
launcher on a `LocalNode` in its own process (storage_nodes/local_node.py), and, with the
cluster, on a client speaking the same operations to a node over the network. The
record types a gateway writes and reads are re-exported here, so this module is the
whole vocabulary between the two.

Errors: a node raises `NodeError`s; `StreamDropped` is the one a caller is expected to
meet in normal operation (a request that raced its stream's deletion).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from storage_nodes.log.record import MessageAttribute, Record, RecordIn

__all__ = ["MessageAttribute", "Node", "NodeError", "Record", "RecordIn", "StreamDropped"]


class NodeError(Exception):
    """Base of the errors a node raises on purpose."""


class StreamDropped(NodeError):
    """The stream was dropped (its queue deleted): it is not opened again. Stream ids are
    never reused, so a use of one after its drop is a request that raced the deletion."""


class Node(Protocol):
    """Partitioned logs of streams, addressed by (stream id, partition)."""

    async def append(self, stream_id: str, partition: int, records: Sequence[RecordIn]) -> int:
        """Appends durably (per the log's policy); returns the first record's offset."""
        ...

    async def read_offsets(
        self, stream_id: str, partition: int, offsets: Sequence[int]
    ) -> dict[int, Record]:
        """The records at these offsets that the partition still holds."""
        ...

    async def end_offset(self, stream_id: str, partition: int) -> int:
        """The next offset the partition will assign: every offset below it is durable."""
        ...

    async def drop_stream(self, stream_id: str) -> None:
        """Deletes every partition of a stream; later uses of it raise StreamDropped."""
        ...

    async def close(self) -> None: ...
