"""The ordered set of a partition's segments."""

from __future__ import annotations

import bisect
from collections.abc import Iterator

from storage_nodes.log.segment import LogSegment

__all__ = ["LogSegments"]


class LogSegments:
    """A partition's segments ordered by base offset; the last one is the active segment.

    Invariants: never empty; base offsets strictly increase; each segment's records end
    exactly where the next one's begin (offsets are dense across segments).

    Thread-safety: none. Owned by the event-loop thread; worker threads get individual
    segments handed to them, never this set.
    """

    def __init__(self, segments: list[LogSegment]) -> None:
        if not segments:
            raise ValueError("a partition always has an active segment")
        self._segments = list(segments)
        self._bases = [segment.base_offset for segment in segments]

    def __len__(self) -> int:
        return len(self._segments)

    def __iter__(self) -> Iterator[LogSegment]:
        return iter(list(self._segments))

    @property
    def first(self) -> LogSegment:
        return self._segments[0]

    @property
    def active(self) -> LogSegment:
        return self._segments[-1]

    def sealed(self) -> list[LogSegment]:
        """Every segment but the active one, oldest first."""
        return self._segments[:-1]

    def add(self, segment: LogSegment) -> None:
        """Append a new active segment, which must start where the current one ends."""
        if segment.base_offset != self.active.next_offset:
            raise ValueError(
                f"segment at {segment.base_offset} does not follow {self.active.next_offset}"
            )
        self._segments.append(segment)
        self._bases.append(segment.base_offset)

    def containing(self, offset: int) -> int:
        """Index of the segment holding ``offset`` (the first one if it is below them all)."""
        return max(bisect.bisect_right(self._bases, offset) - 1, 0)

    def starting_at(self, offset: int) -> list[LogSegment]:
        """The segment holding ``offset`` and every later one."""
        return self._segments[self.containing(offset) :]

    def remove_oldest(self, count: int) -> list[LogSegment]:
        """Remove and return the ``count`` oldest segments; the active one never goes."""
        if count >= len(self._segments):
            raise ValueError("the active segment cannot be removed")
        removed = self._segments[:count]
        del self._segments[:count]
        del self._bases[:count]
        return removed
