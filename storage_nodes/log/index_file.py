"""Shared machinery of the two sparse indexes (offset_index.py, time_index.py).

An index file is a headerless array of fixed-size big-endian entries. In memory the
entries are one ``bytearray`` in the same encoding, searched in place with
``struct.unpack_from``, so loading a file is a single read and an entry costs its 8 or 12
bytes whatever the Python object overhead.
"""

from __future__ import annotations

import logging
import os
import struct
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from storage_nodes.log.file_names import TMP_SUFFIX
from storage_nodes.log.fileio import append_all

__all__ = ["IndexFile"]

log = logging.getLogger(__name__)


class IndexFile:
    """Fixed-size entries, kept in memory for lookups and mirrored to a file.

    Entries are appended in memory by the owner of the segment (the event-loop thread,
    when a write commits) and appended to the file by the partition's I/O thread, only
    after the log bytes they point at were fsynced: every entry that reaches the disk
    points at durable data. The file may still hold
    garbage (power loss, a stray writer): subclasses state what a valid entry is, and
    :meth:`load` keeps only the longest valid prefix.

    Thread-safety: sealed segments load lazily, on first lookup, from a worker thread; the
    owning segment serializes :meth:`load` and :meth:`replace` under its lock. Lookups
    take no lock: entries are only ever appended or replaced wholesale, and each
    ``unpack_from`` runs under the GIL, so a concurrent reader sees a valid prefix.
    """

    ENTRY: ClassVar[struct.Struct]

    def __init__(self, path: Path, base_offset: int, *, loaded: bool) -> None:
        self.path = path
        self.base_offset = base_offset
        self._entries: bytearray | None = bytearray() if loaded else None
        self._append_fd: int | None = None  # kept open while the segment is active

    # -- reading ------------------------------------------------------------------------

    @property
    def loaded(self) -> bool:
        return self._entries is not None

    def _buf(self) -> bytearray:
        if self._entries is None:
            raise RuntimeError(f"{self.path} is not loaded")
        return self._entries

    def __len__(self) -> int:
        return len(self._buf()) // self.ENTRY.size

    def packed(self) -> bytes:
        """All entries, encoded exactly as the file stores them."""
        return bytes(self._buf())

    def entry(self, i: int) -> tuple[int, ...]:
        return self.ENTRY.unpack_from(self._buf(), i * self.ENTRY.size)

    def last_entry(self) -> tuple[int, ...] | None:
        n = len(self)
        return self.entry(n - 1) if n else None

    def _last_index_where(self, field: int, accept: Callable[[int], bool]) -> int:
        """Index of the last entry whose ``field`` passes ``accept`` (monotonic), or -1."""
        buf, unpack, size = self._buf(), self.ENTRY.unpack_from, self.ENTRY.size
        lo, hi = 0, len(buf) // size  # invariant: answer in [lo - 1, hi - 1]
        while lo < hi:
            mid = (lo + hi) // 2
            if accept(unpack(buf, mid * size)[field]):
                lo = mid + 1
            else:
                hi = mid
        return lo - 1

    # -- loading and validation ---------------------------------------------------------

    def load(self, valid: Callable[[tuple[int, ...], tuple[int, ...] | None], bool]) -> bool:
        """Read the file (once) and keep its longest valid prefix; True if all of it was.

        ``valid(entry, previous)`` judges one entry. A missing file is an empty index. The
        file itself is left as it is; callers rewrite or rebuild it when it was damaged.
        """
        try:
            data = bytearray(self.path.read_bytes())
        except FileNotFoundError:
            data = bytearray()
        kept = self._valid_prefix(data, valid)
        whole = kept * self.ENTRY.size == len(data)
        del data[kept * self.ENTRY.size :]
        # Published only once validated: lock-free readers must never see garbage.
        self._entries = data
        return whole

    def _valid_prefix(
        self, data: bytearray, valid: Callable[[tuple[int, ...], tuple[int, ...] | None], bool]
    ) -> int:
        previous: tuple[int, ...] | None = None
        count = 0
        whole_entries = len(data) - len(data) % self.ENTRY.size
        for entry in self.ENTRY.iter_unpack(bytes(data[:whole_entries])):
            if not valid(entry, previous):
                break
            previous = entry
            count += 1
        return count

    # -- changing (event-loop thread, or a worker holding the segment) ------------------

    def append_packed(self, packed: bytes | bytearray) -> None:
        """Append entries already packed with ``ENTRY`` (callers keep them monotonic)."""
        self._buf().extend(packed)

    def truncate(self, count: int) -> None:
        """Keep the first ``count`` entries in memory (the caller rewrites the file)."""
        del self._buf()[count * self.ENTRY.size :]

    def replace(self, packed: bytearray) -> None:
        """Swap in a rebuilt set of entries (the caller then calls :meth:`rewrite`)."""
        self._entries = packed

    # -- file I/O (worker threads; OSError is translated by the caller) -----------------

    def open_for_append(self) -> None:
        """Keep a descriptor open for :meth:`append_to_file` (the active segment's)."""
        if self._append_fd is None:
            self._append_fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def close(self) -> None:
        if self._append_fd is not None:
            fd, self._append_fd = self._append_fd, None
            os.close(fd)

    def append_to_file(self, data: bytes | bytearray, *, fsync: bool = False) -> None:
        """Append packed entries to the file (no fsync unless asked: derived data)."""
        if not data and not fsync:
            return
        self.open_for_append()
        assert self._append_fd is not None
        append_all(self._append_fd, bytes(data))
        if fsync:
            os.fsync(self._append_fd)

    def rewrite(self) -> None:
        """Replace the file with the in-memory entries (temp file, fsync, rename)."""
        self.close()
        self._write_whole(self.packed())

    def _write_whole(self, data: bytes) -> None:
        tmp = self.path.with_name(self.path.name + TMP_SUFFIX)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            append_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.path)
