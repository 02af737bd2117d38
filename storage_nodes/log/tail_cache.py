"""The records a node appended last, kept as they were appended, for the readers of the
partitions' tails.

Consumers mostly read what producers appended a moment before: the claim of a receive
names offsets just written. Reading them back from the segments costs a `preadv2` and a
decode per claim (a sixth of a consume's time on the event loop, in docs/performance.md),
for records whose values the node had in hand at append time. The cache keeps those
values (the appended `RecordIn`s, their bodies shared, not copied) and builds the
`Record`s of a read from them.

Bounded in bytes over every partition of the node: appends enter in the order they
become durable, and when the bound is passed the oldest appends (of any partition) leave
first, whole. A consumer that keeps up reads from the cache; one that falls behind by
more than the bound reads from the segments, as before.

Bounded in age too (`max_age_s`): an append leaves once it has been held that long,
read or not. Without it the last appends before a quiet spell stay in memory until
newer ones push them out, which may be never: a burst of 35 000 sends that no one
consumed kept 16 MB, and the process's memory, up until the next burst
(docs/performance.md, "What a burst leaves behind"). A consumer right behind its
producers reads within milliseconds; one more than `max_age_s` behind reads from the
segments, as one past the byte bound does. Ageing runs on a timer of the event loop
(none is needed while the cache is empty).

Correctness rests on what the log guarantees: a record's offset never names another
record while the log object is open (offsets are dense and never reused; retention only
removes segments from the start, and `PartitionLog.read_offsets` filters by the log's
start and end before asking the cache). An append enters only once it is durable and
returned, so the cache never holds what a reader of the segments could not see. A log
forgets its part of the cache when it closes (a partition reopened after a failure, or
started over at the archive's end, starts with none).

Thread-safety: the event loop's thread only, like the log that calls it.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from storage_nodes import metrics
from storage_nodes.log.record import Record, RecordIn

__all__ = ["PartitionTail", "TailCache"]

# What one cached record costs beyond its body and attributes: the RecordIn, its message
# id, the dict entry (measured with tracemalloc: ~230 bytes for a record without
# attributes; rounded up).
_RECORD_OVERHEAD_BYTES = 256
# How long an append stays at most; see the module's docstring.
DEFAULT_MAX_AGE_S = 10.0


class _Append(NamedTuple):
    """One append in the cache's admission order."""

    tail: PartitionTail
    base_offset: int
    record_count: int
    size_bytes: int
    added_s: float  # on the cache's clock


class TailCache:
    """The node-wide budget; each partition log holds a `PartitionTail` of it."""

    def __init__(
        self,
        max_bytes: int,
        max_age_s: float = DEFAULT_MAX_AGE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`clock`: seconds, monotonic; the event loop's timer ages the cache by it."""
        if max_bytes < 0:
            raise ValueError("max_bytes must be >= 0")
        if max_age_s <= 0:
            raise ValueError("max_age_s must be > 0")
        self.max_bytes = max_bytes
        self.max_age_s = max_age_s
        self._clock = clock
        self.size_bytes = 0
        self._appends: deque[_Append] = deque()  # oldest first
        self._ageing: asyncio.TimerHandle | None = None

    def partition(self) -> PartitionTail:
        """A new, empty tail for one partition log."""
        return PartitionTail(self)

    def _admit(self, entry: _Append) -> None:
        before_bytes = self.size_bytes
        self._appends.append(entry)
        self.size_bytes += entry.size_bytes
        self._evict(lambda oldest: self.size_bytes > self.max_bytes)
        metrics.TAIL_CACHE_BYTES.inc(self.size_bytes - before_bytes)
        if self._ageing is None:
            self._age_later()

    def expire(self) -> None:
        """Lets go of the appends held `max_age_s` or longer (the timer calls it)."""
        self._ageing = None
        before_bytes = self.size_bytes
        held_since_s = self._clock() - self.max_age_s
        self._evict(lambda oldest: oldest.added_s <= held_since_s)
        metrics.TAIL_CACHE_BYTES.dec(before_bytes - self.size_bytes)
        self._age_later()

    def _evict(self, while_: Callable[[_Append], bool]) -> None:
        evicted = 0
        appends = self._appends
        while appends and while_(appends[0]):
            oldest = appends.popleft()
            oldest.tail._forget(oldest.base_offset, oldest.record_count)
            self.size_bytes -= oldest.size_bytes
            evicted += oldest.record_count
        if evicted:
            metrics.TAIL_CACHE_EVICTED.inc(evicted)

    def _age_later(self) -> None:
        """Sets the timer for the oldest append's expiry, if any is held and a loop runs
        (outside one the cache is bounded in bytes only)."""
        if not self._appends:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        delay_s = self._appends[0].added_s + self.max_age_s - self._clock()
        self._ageing = loop.call_later(max(delay_s, 0.0), self.expire)

    def _release(self, tail: PartitionTail) -> None:
        kept = deque(entry for entry in self._appends if entry.tail is not tail)
        released = self.size_bytes - sum(entry.size_bytes for entry in kept)
        self._appends = kept
        self.size_bytes -= released
        metrics.TAIL_CACHE_BYTES.dec(released)


class PartitionTail:
    """One partition log's records in the cache, by offset."""

    __slots__ = ("_cache", "_records")

    def __init__(self, cache: TailCache) -> None:
        self._cache = cache
        self._records: dict[int, RecordIn] = {}

    def put(self, base_offset: int, records: Sequence[RecordIn]) -> None:
        """Records just appended durably at `base_offset` and on."""
        size_bytes = sum(_size_bytes(record) for record in records)
        if size_bytes > self._cache.max_bytes:
            return  # would evict everything, itself included
        offsets = range(base_offset, base_offset + len(records))
        self._records.update(zip(offsets, records, strict=True))
        cache = self._cache
        cache._admit(_Append(self, base_offset, len(records), size_bytes, cache._clock()))

    def get(self, offsets: Iterable[int]) -> tuple[dict[int, Record], list[int]]:
        """The records of the offsets the cache has, and the offsets it has not."""
        cached = self._records
        found: dict[int, Record] = {}
        missing: list[int] = []
        for offset in offsets:
            r = cached.get(offset)
            if r is None:
                missing.append(offset)
                continue
            found[offset] = Record(
                offset, r.message_id, r.timestamp_ms, r.body, r.key, r.group_id, r.dedup_id,
                r.delay_ms, r.attributes, r.system_attributes, r.body_md5,
            )  # fmt: skip
        if found:
            metrics.TAIL_CACHE_HITS.inc(len(found))
        if missing:
            metrics.TAIL_CACHE_MISSES.inc(len(missing))
        return found, missing

    def close(self) -> None:
        """Forgets every record of this partition (its log is closing)."""
        self._records.clear()
        self._cache._release(self)

    def _forget(self, base_offset: int, count: int) -> None:
        pop = self._records.pop
        for offset in range(base_offset, base_offset + count):
            pop(offset, None)


def _size_bytes(record: RecordIn) -> int:
    size = len(record.body) + _RECORD_OVERHEAD_BYTES
    for attributes in (record.attributes, record.system_attributes):
        for name, value in attributes.items():
            size += len(name) + len(value.string_value or "") + len(value.binary_value or b"")
            size += _RECORD_OVERHEAD_BYTES // 4
    return size
