"""A follower's copies of other nodes' tails (replication mode `replica`).

Layout: `<node dir>/replicas/<stream>/<partition>/<lease epoch>/<first>.copy`, append-only
files of record batches (batches.py: each batch length-framed by its header and covered
by its CRC32C), fsynced before a copy is answered. A new file is begun once the current
one passes FILE_BYTES, so that the files the archive covers can be deleted whole while
the tenure goes on writing. Epochs and offsets are 20 zero-padded digits.

What the store knows of each file (its highest end offset, its size) it keeps in
memory, and reads back from the files at start; a file cut short by a crash is read up
to its last whole batch (its torn end was never acknowledged), and cut there, so that
the copies appended to it after a restart are read too.

Deleting: `trim` drops the files of a tenure whose records the archive holds (the
owner says how far, with each copy); `delete` drops a tenure's files altogether (its
pending tail filled, or nothing of it awaited).

Not thread-safe: one event loop; the file work runs in worker threads.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from storage_nodes.copies import batches
from storage_nodes.local_node import check_stream_id
from storage_nodes.log.fileio import fsync_directory
from storage_nodes.log.record import Record

log = logging.getLogger(__name__)

FILE_BYTES = 8 * 1024 * 1024
SUFFIX = ".copy"

Tenure = tuple[str, int, int]  # stream id, partition, lease epoch


@dataclass(slots=True)
class _File:
    path: Path
    end_offset: int  # one past the highest offset it holds
    size_bytes: int


@dataclass(slots=True)
class _Copies:
    """One tenure's files, oldest first; the last is the one written."""

    files: list[_File] = field(default_factory=list)
    written_s: float = 0.0  # on the monotonic clock: when a copy last arrived
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class ReplicaStore:
    def __init__(self, node_dir: Path, *, monotonic_s: Callable[[], float] = time.monotonic):
        self._dir = node_dir / "replicas"
        self._monotonic_s = monotonic_s
        self._tenures: dict[Tenure, _Copies] = {}

    async def load(self) -> None:
        """Reads what the files on disk hold (at start)."""
        self._tenures = await asyncio.to_thread(self._scan)

    def _scan(self) -> dict[Tenure, _Copies]:
        found: dict[Tenure, _Copies] = {}
        for path in sorted(self._dir.glob(f"*/*/*/*{SUFFIX}")):
            epoch_dir = path.parent
            stream_id, partition, epoch = epoch_dir.parts[-3:]
            if not (partition.isdigit() and epoch.isdigit()):
                continue
            tenure = (stream_id, int(partition), int(epoch))
            data = path.read_bytes()
            records = batches.decode(data, source=str(path))
            intact = batches.intact_bytes(data)
            if intact < len(data):
                # Cut the torn end off: a copy appended after it would be unreadable.
                os.truncate(path, intact)
                _fsync(path)
            end = max((r.offset + 1 for r in records), default=0)
            copies = found.setdefault(tenure, _Copies(written_s=self._monotonic_s()))
            copies.files.append(_File(path, end, intact))
        return found

    def tenures(self) -> list[tuple[Tenure, float]]:
        """Each tenure held, and when a copy of it last arrived (monotonic seconds)."""
        return sorted((tenure, copies.written_s) for tenure, copies in self._tenures.items())

    def end_offset(self, tenure: Tenure) -> int:
        """One past the highest offset the tenure's copies hold (0: none)."""
        copies = self._tenures.get(tenure)
        return max((f.end_offset for f in copies.files), default=0) if copies else 0

    async def write(self, tenure: Tenure, data: bytes, *, archived_end: int) -> None:
        """Appends the batches `data` (checked: ValueError) and fsyncs them; then drops
        the tenure's files that end at or below `archived_end`."""
        check_stream_id(tenure[0])
        first_offset, end_offset = batches.check(data)
        while True:
            copies = self._tenures.setdefault(tenure, _Copies())
            async with copies.lock:
                if self._tenures.get(tenure) is copies:
                    await self._write(tenure, copies, data, first_offset, end_offset)
                    await self._trim(copies, archived_end)
                    return
            # Deleted while this write waited for the lock: write into a fresh entry,
            # after the deletion, never into a directory being removed.

    async def _write(
        self, tenure: Tenure, copies: _Copies, data: bytes, first_offset: int, end_offset: int
    ) -> None:
        current = copies.files[-1] if copies.files else None
        if current is None or current.size_bytes >= FILE_BYTES:
            current = _File(self._path(tenure, first_offset), 0, 0)
            copies.files.append(current)
        await asyncio.to_thread(_append_synced, current.path, data)
        current.end_offset = max(current.end_offset, end_offset)
        current.size_bytes += len(data)
        copies.written_s = self._monotonic_s()

    async def trim(self, tenure: Tenure, archived_end: int) -> None:
        copies = self._tenures.get(tenure)
        if copies is not None:
            async with copies.lock:
                await self._trim(copies, archived_end)

    async def _trim(self, copies: _Copies, archived_end: int) -> None:
        # The file being written stays until the tenure ends: it grows on.
        done = [f for f in copies.files[:-1] if f.end_offset <= archived_end]
        for file in done:
            copies.files.remove(file)
            await asyncio.to_thread(file.path.unlink, missing_ok=True)

    async def records(self, tenure: Tenure) -> list[Record]:
        """Every record copied of the tenure, in offset order, each once."""
        copies = self._tenures.get(tenure)
        if copies is None:
            return []
        async with copies.lock:
            paths = [f.path for f in copies.files]
        found: list[Record] = []
        for path in paths:
            try:
                data = await asyncio.to_thread(path.read_bytes)
            except FileNotFoundError:
                continue
            found.extend(batches.decode(data, source=str(path)))
        return batches.in_offset_order(found)

    async def delete(self, tenure: Tenure) -> None:
        copies = self._tenures.get(tenure)
        if copies is None:
            return
        async with copies.lock:
            directory = self._path(tenure, 0).parent
            await asyncio.to_thread(shutil.rmtree, directory, ignore_errors=True)
            # Taken out once the directory is gone, under the lock: a write that waited
            # for it then starts a new entry and directory.
            if self._tenures.get(tenure) is copies:
                del self._tenures[tenure]
        log.info("deleted the copies of %s/%d (epoch %d)", *tenure)

    def _path(self, tenure: Tenure, first_offset: int) -> Path:
        stream_id, partition, epoch = tenure
        return (
            self._dir
            / stream_id
            / str(partition)
            / f"{epoch:020d}"
            / (f"{first_offset:020d}{SUFFIX}")
        )


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.fdatasync(fd)
    finally:
        os.close(fd)


def _append_synced(path: Path, data: bytes) -> None:
    new = not path.exists()
    if new:
        path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fdatasync(fd)
    finally:
        os.close(fd)
    if new:  # the file's name must survive a crash too
        fsync_directory(path.parent)
