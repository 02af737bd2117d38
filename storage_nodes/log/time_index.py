"""Sparse time index: from a timestamp to the offset where a scan for it may start."""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path

from storage_nodes.log.index_file import IndexFile

__all__ = ["TimeIndex"]


class TimeIndex(IndexFile):
    """Bounds the timestamps of one segment's records by offset.

    File format (``%020d.timeindex``): a headerless array of 12-byte big-endian entries::

        max_timestamp_ms  int64   largest timestamp of the segment's records before ...
        relative_offset   uint32  ... this offset (minus the segment's base offset)

    An entry ``(T, r)`` promises: every record of the segment with offset below
    ``base + r`` has a timestamp <= T. ``T`` is the running maximum (producers' clocks may
    step back, as in Kafka), so the column never decreases; ``r`` strictly increases.
    Sparseness: an entry is written beside each offset-index entry (describing the records
    before that batch), plus one final entry covering the whole segment when it is sealed,
    so a sealed segment's largest timestamp is its last entry.

    Lookup of the first record with timestamp >= t: take the last entry with ``T < t``;
    everything before its offset is too old, so the scan starts there.

    Crash policy and thread-safety: as :class:`~storage_nodes.log.offset_index.OffsetIndex`.
    """

    ENTRY = struct.Struct(
        ">"
        "q"  # max_timestamp_ms: running maximum timestamp of the records before the offset
        "I"  # relative_offset: that offset minus the segment's base offset
    )

    def __init__(self, path: Path, base_offset: int, *, loaded: bool) -> None:
        super().__init__(path, base_offset, loaded=loaded)

    def lookup(self, timestamp_ms: int) -> int:
        """An offset at or before the first record with timestamp >= ``timestamp_ms``."""
        i = self._last_index_where(0, lambda ts: ts < timestamp_ms)
        if i < 0:
            return self.base_offset
        return self.base_offset + self.entry(i)[1]

    def max_timestamp(self) -> int | None:
        """The last entry's timestamp: the segment's largest once it is sealed."""
        last = self.last_entry()
        return None if last is None else last[0]

    def end_offset(self) -> int | None:
        """The offset the last entry covers up to (the segment's end once sealed)."""
        last = self.last_entry()
        return None if last is None else self.base_offset + last[1]

    def pack(self, max_timestamp_ms: int, offset: int) -> bytes:
        """One entry: records before ``offset`` have timestamps <= ``max_timestamp_ms``."""
        return self.ENTRY.pack(max_timestamp_ms, offset - self.base_offset)

    def last_at_or_before(self, offset: int) -> int:
        """Position in the index of the last entry whose offset is <= ``offset``, or -1."""
        relative = offset - self.base_offset
        return self._last_index_where(1, lambda rel: rel <= relative)

    def validator(
        self, end_offset: int
    ) -> Callable[[tuple[int, ...], tuple[int, ...] | None], bool]:
        """What :meth:`load` accepts for a segment ending before ``end_offset``."""
        max_relative = end_offset - self.base_offset

        def valid(entry: tuple[int, ...], previous: tuple[int, ...] | None) -> bool:
            timestamp, rel = entry
            if not 0 < rel <= max_relative:
                return False
            return previous is None or (timestamp >= previous[0] and rel > previous[1])

        return valid
