"""What one write does to the end of a segment: planned on the loop, run by the I/O thread."""

from __future__ import annotations

import enum
from typing import Generic, Protocol, TypeVar

from storage_nodes.log.log_config import LogConfig
from storage_nodes.log.offset_index import OffsetIndex
from storage_nodes.log.record_batch import EncodedBatch
from storage_nodes.log.time_index import TimeIndex

__all__ = ["AppendPlan", "Finish", "PlannedSegment"]


class PlannedSegment(Protocol):
    """What a plan reads of its segment (storage_nodes.log.segment.LogSegment), which in
    turn runs and applies plans: a protocol here keeps the two modules out of a cycle."""

    offset_index: OffsetIndex
    time_index: TimeIndex

    @property
    def size(self) -> int: ...

    @property
    def next_offset(self) -> int: ...

    @property
    def first_timestamp_ms(self) -> int | None: ...

    @property
    def max_timestamp_ms(self) -> int | None: ...

    @property
    def rolling_base_ms(self) -> int | None: ...

    @property
    def bytes_since_index(self) -> int: ...


class Finish(enum.IntEnum):
    """How far an :class:`AppendPlan` goes after writing its bytes; each implies the last."""

    WRITE = 0  # bytes reach the page cache only
    SYNC = 1  # fdatasync the log, then write the index entries that now point at durable data
    CLOSE = 2  # and fsync the index files and close the log file (clean shutdown)
    SEAL = 3  # and first add the final time-index entry: the segment becomes read-only


S = TypeVar("S", bound=PlannedSegment)


class AppendPlan(Generic[S]):
    """Batches to write at the end of one segment, and the segment's state once written.

    Built on the event-loop thread, executed by the partition's I/O thread
    (:meth:`LogSegment.write`), then applied on the loop (:meth:`LogSegment.commit`).
    Several plans for one segment may be in flight; each starts where the previous one
    ends (:meth:`following`), and they are written and committed in that order.
    """

    def __init__(self, segment: S, previous: AppendPlan[S] | None = None) -> None:
        self.segment = segment
        state: AppendPlan[S] | PlannedSegment = previous if previous is not None else segment
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

    def following(self) -> AppendPlan[S]:
        """A plan for the same segment starting where this one ends."""
        return AppendPlan(self.segment, self)

    def add_batches(
        self, batches: list[EncodedBatch], offsets: list[int], *, start: int, stop: int,
        config: LogConfig, budget_bytes: int, now_ms: int,
    ) -> int:  # fmt: skip
        """Place ``batches[start:stop]`` after what is planned so far, in order, appending
        each one's base offset to ``offsets``; returns the index of the first one not placed.

        Stops before a batch that would take the segment past ``config.segment_max_bytes``
        (an empty segment takes any batch), and once ``budget_bytes`` were placed. ``now_ms``
        (the log's clock) starts the segment's age if this places its first batch. Runs
        for every append, hence the local variables.
        """
        offset_index, time_index = self.segment.offset_index, self.segment.time_index
        interval, max_bytes = config.index_interval_bytes, config.segment_max_bytes
        parts, add_offset = self.parts, offsets.append
        size, offset, since = self.size, self.next_offset, self.bytes_since_index
        max_ts, end_bytes = self.max_timestamp_ms, self.size + budget_bytes
        index = start
        while index < stop and size < end_bytes:
            batch = batches[index]
            batch_size = batch.size
            if size > 0:
                if size + batch_size > max_bytes:
                    break
                if since >= interval:
                    assert max_ts is not None
                    self.offset_entries += offset_index.pack(offset, size)
                    self.time_entries += time_index.pack(max_ts, offset)
                    since = 0
            parts += (batch.prefix(offset), batch.covered)
            add_offset(offset)
            offset += batch.record_count
            size += batch_size
            since += batch_size
            if max_ts is None or batch.max_timestamp_ms > max_ts:
                max_ts = batch.max_timestamp_ms
            index += 1
        if index > start and self.first_timestamp_ms is None:
            self.first_timestamp_ms = batches[start].first_timestamp_ms
            self.rolling_base_ms = now_ms
        self.size, self.next_offset, self.bytes_since_index = size, offset, since
        self.max_timestamp_ms = max_ts
        return index

    def finalize(self, finish: Finish) -> None:
        """Fix what happens after the write. Call once, after the last :meth:`add_batches`."""
        self.finish = finish
        if finish >= Finish.SEAL and self.max_timestamp_ms is not None:
            self.time_entries += self.segment.time_index.pack(
                self.max_timestamp_ms, self.next_offset
            )
