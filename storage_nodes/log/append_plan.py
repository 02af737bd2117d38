"""What one write does to the end of a segment: planned on the loop, run by the I/O thread."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

from storage_nodes.log.record_batch import EncodedBatch

if TYPE_CHECKING:
    from storage_nodes.log.segment import LogSegment

__all__ = ["AppendPlan", "Finish"]


class Finish(enum.IntEnum):
    """How far an :class:`AppendPlan` goes after writing its bytes; each implies the last."""

    WRITE = 0  # bytes reach the page cache only
    SYNC = 1  # fdatasync the log, then write the index entries that now point at durable data
    CLOSE = 2  # and fsync the index files and close the log file (clean shutdown)
    SEAL = 3  # and first add the final time-index entry: the segment becomes read-only


class AppendPlan:
    """Batches to write at the end of one segment, and the segment's state once written.

    Built on the event-loop thread, executed by the partition's I/O thread
    (:meth:`LogSegment.write`), then applied on the loop (:meth:`LogSegment.commit`).
    Several plans for one segment may be in flight; each starts where the previous one
    ends (:meth:`following`), and they are written and committed in that order.
    """

    def __init__(self, segment: LogSegment, previous: AppendPlan | None = None) -> None:
        self.segment = segment
        state: AppendPlan | LogSegment = previous if previous is not None else segment
        self.position: int = state.size
        self.size: int = state.size
        self.next_offset: int = state.next_offset
        self.first_timestamp_ms: int | None = state.first_timestamp_ms
        self.max_timestamp_ms: int | None = state.max_timestamp_ms
        self.rolling_base_ms: int | None = state.rolling_base_ms
        self.bytes_since_index: int = state.bytes_since_index
        self.parts: list[bytes] = []
        self.offset_entries = bytearray()
        self.time_entries = bytearray()
        self.finish = Finish.WRITE

    def following(self) -> AppendPlan:
        """A plan for the same segment starting where this one ends."""
        return AppendPlan(self.segment, self)

    def add(self, batch: EncodedBatch, index_interval_bytes: int, now_ms: int) -> int:
        """Place ``batch`` after what is planned so far; returns its base offset.

        ``now_ms`` (the log's clock) starts the segment's age if this is its first batch.
        """
        base = self.next_offset
        if self.size > 0 and self.bytes_since_index >= index_interval_bytes:
            assert self.max_timestamp_ms is not None
            self.offset_entries += self.segment.offset_index.pack(base, self.size)
            self.time_entries += self.segment.time_index.pack(self.max_timestamp_ms, base)
            self.bytes_since_index = 0
        self.parts += (batch.prefix(base), batch.covered)
        self.size += batch.size
        self.bytes_since_index += batch.size
        self.next_offset = base + batch.record_count
        if self.first_timestamp_ms is None:
            self.first_timestamp_ms = batch.first_timestamp_ms
            self.rolling_base_ms = now_ms
        if self.max_timestamp_ms is None or batch.max_timestamp_ms > self.max_timestamp_ms:
            self.max_timestamp_ms = batch.max_timestamp_ms
        return base

    def finalize(self, finish: Finish) -> None:
        """Fix what happens after the write. Call once, after the last :meth:`add`."""
        self.finish = finish
        if finish >= Finish.SEAL and self.max_timestamp_ms is not None:
            self.time_entries += self.segment.time_index.pack(
                self.max_timestamp_ms, self.next_offset
            )
