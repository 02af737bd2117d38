"""Which records a read wants: partitions, an offset range and a time range.

Bounds come from two places, ANDed: the reader's options (`partitions`, `start_offset`,
...) and the filters Spark pushes down (`DataSourceReader.pushFilters`) on the
`partition`, `offset` and `timestamp` columns. The planner prunes partitions and
segments with them through the manifest, before any segment is fetched; the decoder
then drops the rows of the segments it does read that lie outside them, so a pushed
filter it reports as handled is applied exactly.

Ranges are half-open: `start` inclusive, `end` exclusive, None for no bound. Timestamps
are milliseconds, as stored; a pushed filter on the (microsecond) timestamp column is
converted exactly (`timestamp > 10:00:00.0005` keeps records from 10:00:00.001 on).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass, replace

from pyspark.sql.datasource import (
    EqualNullSafe,
    EqualTo,
    Filter,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    IsNotNull,
    LessThan,
    LessThanOrEqual,
)

from storage_nodes.archive.manifest import SegmentEntry

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
_MICROSECOND = datetime.timedelta(microseconds=1)
_COMPARISONS = (EqualTo, EqualNullSafe, GreaterThan, GreaterThanOrEqual, LessThan, LessThanOrEqual)
# The columns that can never be null: IS NOT NULL on them holds for every row.
_NOT_NULL = frozenset(
    ("account", "queue", "partition", "offset", "timestamp", "message_id", "attributes", "body")
)


@dataclass(frozen=True, slots=True)
class Bounds:
    partitions: frozenset[int] | None = None  # None: every partition
    start_partition: int = 0
    end_partition: int | None = None
    start_offset: int = 0
    end_offset: int | None = None
    start_timestamp_ms: int | None = None
    end_timestamp_ms: int | None = None

    @property
    def empty(self) -> bool:
        """No record can match."""
        return (
            (
                self.partitions is not None
                and not any(map(self._in_partition_range, self.partitions))
            )
            or _empty(self.start_partition, self.end_partition)
            or _empty(self.start_offset, self.end_offset)
            or _empty(self.start_timestamp_ms, self.end_timestamp_ms)
        )

    @property
    def has_time_bound(self) -> bool:
        return self.start_timestamp_ms is not None or self.end_timestamp_ms is not None

    def admits_partition(self, partition: int) -> bool:
        return self._in_partition_range(partition) and (
            self.partitions is None or partition in self.partitions
        )

    def admits_segment(self, segment: SegmentEntry) -> bool:
        """Whether the manifest entry may hold a wanted record.

        A segment's records are stamped at or before its `max_timestamp_ms`, so a lower
        time bound above it rules the segment out exactly. The manifest has no minimum
        timestamp: an upper time bound at or below the segment's *first* record rules it
        out, which assumes the stamps do not step back across the segment's start
        (docs/spark.md, "Time ranges").
        """
        if segment.end_offset <= self.start_offset:
            return False
        if self.end_offset is not None and segment.base_offset >= self.end_offset:
            return False
        if segment.max_timestamp_ms is None or segment.first_timestamp_ms is None:
            return not self.has_time_bound
        if (
            self.start_timestamp_ms is not None
            and segment.max_timestamp_ms < self.start_timestamp_ms
        ):
            return False
        return not (
            self.end_timestamp_ms is not None
            and segment.first_timestamp_ms >= self.end_timestamp_ms
        )

    def intersect(self, other: Bounds) -> Bounds:
        if self.partitions is None or other.partitions is None:
            partitions = self.partitions if other.partitions is None else other.partitions
        else:
            partitions = self.partitions & other.partitions
        return Bounds(
            partitions,
            max(self.start_partition, other.start_partition),
            _min_end(self.end_partition, other.end_partition),
            max(self.start_offset, other.start_offset),
            _min_end(self.end_offset, other.end_offset),
            _max_start(self.start_timestamp_ms, other.start_timestamp_ms),
            _min_end(self.end_timestamp_ms, other.end_timestamp_ms),
        )

    def with_offsets(self, start_offset: int, end_offset: int) -> Bounds:
        """These bounds, narrowed to offsets [start_offset, end_offset)."""
        return self.intersect(Bounds(start_offset=start_offset, end_offset=end_offset))

    def for_rows(self) -> Bounds:
        """What a decoder still has to check row by row (the partition is planned)."""
        return replace(self, partitions=None, start_partition=0, end_partition=None)

    def _in_partition_range(self, partition: int) -> bool:
        return partition >= self.start_partition and (
            self.end_partition is None or partition < self.end_partition
        )


@dataclass(frozen=True, slots=True)
class Pushed:
    """A filter turned into bounds; `exact` if the bounds are the whole filter (else Spark
    must still evaluate it after the scan)."""

    bounds: Bounds
    exact: bool


def push(filters: Iterable[Filter]) -> tuple[Bounds, list[Filter]]:
    """The bounds the filters imply, and the filters Spark must still evaluate."""
    bounds = Bounds()
    remaining: list[Filter] = []
    for item in filters:
        pushed = from_filter(item)
        if pushed is None:
            remaining.append(item)
            continue
        bounds = bounds.intersect(pushed.bounds)
        if not pushed.exact:
            remaining.append(item)
    return bounds, remaining


def from_filter(item: Filter) -> Pushed | None:
    """The bounds one pushed filter implies, or None if it names no bounded column (or
    compares it with something other than a plain value)."""
    attribute = getattr(item, "attribute", None)  # Not(...) has a child instead
    if not isinstance(attribute, tuple) or len(attribute) != 1:
        return None
    column = str(attribute[0]).lower()
    if isinstance(item, IsNotNull):
        return Pushed(Bounds(), exact=True) if column in _NOT_NULL else None
    if column == "timestamp":
        return _timestamp_filter(item)
    if column in ("partition", "offset"):
        return _integer_filter(item, column)
    return None


def _integer_filter(item: Filter, column: str) -> Pushed | None:
    if isinstance(item, In):
        values = item.value
        if not values or not all(_is_int(v) for v in values):
            return None
        if column == "partition":
            return Pushed(Bounds(partitions=frozenset(values)), exact=True)
        low, high = min(values), max(values)
        return Pushed(Bounds(start_offset=max(low, 0), end_offset=high + 1), exact=low == high)
    if not isinstance(item, _COMPARISONS) or not _is_int(item.value):
        return None
    start, end = _range(item, item.value, item.value + 1)
    if column == "partition":
        return Pushed(Bounds(start_partition=max(start or 0, 0), end_partition=end), exact=True)
    return Pushed(Bounds(start_offset=max(start or 0, 0), end_offset=end), exact=True)


def _timestamp_filter(item: Filter) -> Pushed | None:
    if not isinstance(item, _COMPARISONS):
        return None
    value = item.value
    if not isinstance(value, datetime.datetime) or value.tzinfo is None:
        return None
    micros = (value - _EPOCH) // _MICROSECOND
    floor_ms, ceil_ms = micros // 1000, -(-micros // 1000)
    if isinstance(item, EqualTo | EqualNullSafe):
        if floor_ms != ceil_ms:  # between two milliseconds: no stored stamp is equal
            return Pushed(Bounds(start_timestamp_ms=ceil_ms, end_timestamp_ms=ceil_ms), True)
        return Pushed(Bounds(start_timestamp_ms=floor_ms, end_timestamp_ms=floor_ms + 1), True)
    start, end = {
        GreaterThan: (floor_ms + 1, None),
        GreaterThanOrEqual: (ceil_ms, None),
        LessThan: (None, ceil_ms),
        LessThanOrEqual: (None, floor_ms + 1),
    }[type(item)]
    return Pushed(Bounds(start_timestamp_ms=start, end_timestamp_ms=end), exact=True)


def _range(item: Filter, value: int, after: int) -> tuple[int | None, int | None]:
    """[start, end) of the integers a comparison with `value` admits."""
    if isinstance(item, EqualTo | EqualNullSafe):
        return value, after
    if isinstance(item, GreaterThan):
        return after, None
    if isinstance(item, GreaterThanOrEqual):
        return value, None
    if isinstance(item, LessThan):
        return None, value
    return None, after  # LessThanOrEqual


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _empty(start: int | None, end: int | None) -> bool:
    return start is not None and end is not None and start >= end


def _min_end(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def _max_start(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else max(a, b)
