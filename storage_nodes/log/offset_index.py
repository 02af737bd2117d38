"""Sparse offset index: from an offset to the byte position of a batch in a ``.log``."""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path

from storage_nodes.log.index_file import IndexFile

__all__ = ["OffsetIndex"]


class OffsetIndex(IndexFile):
    """Maps offsets of one segment to batch positions in its ``.log`` file.

    File format (``%020d.index``): a headerless array of 8-byte big-endian entries::

        relative_offset  uint32  base offset of a batch minus the segment's base offset
        position         uint32  byte position of that batch in the .log file

    Both columns strictly increase. Sparseness: an entry is added for the first batch
    that starts ``index_interval_bytes`` or more after the previous entry (the first batch
    of a segment needs none: it is at position 0), so a lookup is a binary search plus
    a forward walk over at most about ``index_interval_bytes`` of batch headers.

    Crash policy: entries reach the file only after the log bytes they point at were
    fsynced, so a surviving entry never points past durable data; a garbage or torn tail
    is cut by :meth:`load` (see :meth:`validator`), and whatever slips through is caught
    at use because the batch found at ``position`` must carry the expected base offset.

    Thread-safety: as :class:`IndexFile`.
    """

    ENTRY = struct.Struct(
        ">"
        "I"  # relative_offset: batch base offset - segment base offset
        "I"  # position: byte position of that batch in the .log file
    )

    def __init__(self, path: Path, base_offset: int, *, loaded: bool) -> None:
        super().__init__(path, base_offset, loaded=loaded)

    def lookup(self, offset: int) -> tuple[int, int]:
        """The indexed batch at or before ``offset``: ``(its base offset, its position)``.

        ``(base_offset, 0)`` when no entry is at or below ``offset``.
        """
        relative = offset - self.base_offset
        i = self._last_index_where(0, lambda rel: rel <= relative)
        if i < 0:
            return self.base_offset, 0
        rel, position = self.entry(i)
        return self.base_offset + rel, position

    def pack(self, offset: int, position: int) -> bytes:
        """One entry for the batch with base ``offset`` at ``position``, ready to append."""
        return self.ENTRY.pack(offset - self.base_offset, position)

    def validator(
        self, log_size: int, end_offset: int
    ) -> Callable[[tuple[int, ...], tuple[int, ...] | None], bool]:
        """What :meth:`load` accepts for a segment of ``log_size`` bytes ending before
        ``end_offset``: both columns strictly increasing and inside the segment."""
        max_relative = end_offset - self.base_offset

        def valid(entry: tuple[int, ...], previous: tuple[int, ...] | None) -> bool:
            rel, position = entry
            if not (0 < rel < max_relative and 0 < position < log_size):
                return False
            return previous is None or (rel > previous[0] and position > previous[1])

        return valid
