"""A segment: one ``.log`` file of record batches with its two sparse indexes."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from storage_nodes.log.append_plan import AppendPlan, Finish
from storage_nodes.log.batch_scanner import BatchScanner
from storage_nodes.log.errors import CorruptRecordError
from storage_nodes.log.file_names import index_path, log_path, time_index_path
from storage_nodes.log.fileio import (
    NotCached,
    fsync_directory,
    pread_exact,
    pwritev_all,
    pwritev_durable,
)
from storage_nodes.log.offset_index import OffsetIndex
from storage_nodes.log.record import Record
from storage_nodes.log.record_batch import BATCH_HEADER, BatchHeader, read_header
from storage_nodes.log.segment_recovery import rebuild_index_entries, recover_tail
from storage_nodes.log.time_index import TimeIndex

__all__ = ["LogSegment", "SegmentInfo"]

log = logging.getLogger(__name__)

# Index entries are derived data, so the I/O thread writes them to their files once this
# many bytes of offset-index entries (128 entries: 512 KiB of log at the default interval)
# are due rather than after every sync: two fewer syscalls per round, each a point where
# the I/O thread must win the GIL back from the event loop. A crash costs recovery that
# much more log to scan at most.
_INDEX_BACKLOG_BYTES = 128 * 8


@dataclass(frozen=True, slots=True)
class SegmentInfo:
    """What tiering needs to know of a sealed segment. ``end_offset`` is exclusive."""

    base_offset: int
    end_offset: int
    first_timestamp_ms: int | None
    max_timestamp_ms: int | None
    size_bytes: int
    log_path: Path
    offset_index_path: Path
    time_index_path: Path


class LogSegment:
    """One ``%020d.log`` file plus its ``.index`` and ``.timeindex``.

    File format: the ``.log`` is a concatenation of record batches (record_batch.py), the
    first at position 0, with dense offsets from the base offset in the name; the indexes
    are sparse (offset_index.py, time_index.py), one entry per ``index_interval_bytes``.

    Crash policy: the log is the truth and the indexes are derived. Index entries reach
    disk only after the log bytes they point at were fsynced. The active (last) segment
    is recovered on open by :func:`~storage_nodes.log.segment_recovery.recover_tail`:
    CRCs checked from the last index entry, torn or corrupt tail cut. A sealed segment
    was fsynced whole when sealed; its indexes are sanity-checked on open, fully
    validated when first used, and rebuilt from the log if they fail. A sealed batch
    that fails its CRC raises :class:`CorruptRecordError` when read, never garbage.

    Thread-safety: the committed state (``size``, ``next_offset``, timestamps) is
    changed only on the event-loop thread, by :meth:`commit`; a sealed segment's never
    changes. One thread at a time runs :meth:`write` (the partition's I/O thread), and
    any number of worker threads read, each reading only below a ``limit`` snapshot of the
    committed size through its own file descriptor. Lazy index loads and rebuilds are
    serialized by ``_index_lock``.
    """

    def __init__(
        self, directory: Path, base_offset: int, index_interval_bytes: int, *, new: bool
    ) -> None:
        self.directory = directory
        self.base_offset = base_offset
        self.index_interval_bytes = index_interval_bytes
        self.log_path = log_path(directory, base_offset)
        self.offset_index = OffsetIndex(index_path(directory, base_offset), base_offset, loaded=new)
        self.time_index = TimeIndex(
            time_index_path(directory, base_offset), base_offset, loaded=new
        )
        self.size = 0
        self.next_offset = base_offset
        self.first_timestamp_ms: int | None = None
        self.max_timestamp_ms: int | None = None
        self.rolling_base_ms: int | None = None  # when its age started, by the log's clock
        self.bytes_since_index = 0
        self.sealed = False
        self.deleted = False  # set on the loop before the files go; readers skip it
        self._fd: int | None = None  # for appends; only the active segment has one
        # I/O thread only: how much of the .log is known to be on disk (a recovered tail may
        # be in the page cache only), and the index entries not yet in the index files.
        self._durable_size = 0
        self._offset_backlog = bytearray()
        self._time_backlog = bytearray()
        self._index_lock = threading.Lock()

    def info(self) -> SegmentInfo:
        return SegmentInfo(
            self.base_offset,
            self.next_offset,
            self.first_timestamp_ms,
            self.max_timestamp_ms,
            self.size,
            self.log_path,
            self.offset_index.path,
            self.time_index.path,
        )

    # -- lifecycle (worker threads) -----------------------------------------------------

    def create_files(self) -> None:
        """Create the empty ``.log`` of a new active segment and make its name durable."""
        self._fd = os.open(self.log_path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        fsync_directory(self.directory)

    @classmethod
    def recover(
        cls, directory: Path, base_offset: int, index_interval_bytes: int, now_ms: int
    ) -> LogSegment:
        """Open the active segment, cutting any torn or corrupt tail (see segment_recovery).

        Its age restarts from its first batch's timestamp, or ``now_ms`` if that is earlier:
        age survives restarts, and a producer's old timestamp costs one early roll at most.
        """
        segment = cls(directory, base_offset, index_interval_bytes, new=False)
        fd = os.open(segment.log_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            tail = recover_tail(fd, segment.log_path, segment.offset_index, segment.time_index,
                                index_interval_bytes)  # fmt: skip
        except BaseException:
            os.close(fd)
            raise
        segment._fd = fd
        segment.size = tail.size
        segment.next_offset = tail.next_offset
        segment.max_timestamp_ms = tail.max_timestamp_ms
        segment.bytes_since_index = tail.bytes_since_index
        segment.first_timestamp_ms, first_max_ms = tail.first_batch_timestamps
        if first_max_ms is not None:
            segment.rolling_base_ms = min(first_max_ms, now_ms)
        return segment

    @classmethod
    def open_sealed(
        cls, directory: Path, base_offset: int, end_offset: int, index_interval_bytes: int
    ) -> LogSegment:
        """Open a sealed segment whose records end just before ``end_offset``.

        Cheap: reads the first batch header and the last entry of each index; if those
        disagree with the log, the indexes are rebuilt at once.
        """
        segment = cls(directory, base_offset, index_interval_bytes, new=False)
        segment.sealed = True
        segment.next_offset = end_offset
        fd = os.open(segment.log_path, os.O_RDONLY)
        try:
            segment.size = os.fstat(fd).st_size
            first = _peek_header(fd)
            if first is not None:
                segment.first_timestamp_ms = first.first_timestamp_ms
            segment.max_timestamp_ms = segment._peek_indexes()
            if segment.size and segment.max_timestamp_ms is None:
                log.warning("%s: indexes disagree with the log; rebuilding", segment.log_path)
                with segment._index_lock:
                    segment._rebuild_indexes(fd)
        finally:
            os.close(fd)
        return segment

    def _peek_indexes(self) -> int | None:
        """The time index's final timestamp if both index files look whole, else None."""
        time_tail = _file_tail(self.time_index.path, self.time_index.ENTRY.size)
        offset_tail = _file_tail(self.offset_index.path, self.offset_index.ENTRY.size)
        if not time_tail or offset_tail is None:
            return None
        max_ts, rel = self.time_index.ENTRY.unpack(time_tail)
        if self.base_offset + rel != self.next_offset:
            return None
        if offset_tail:
            last_rel, position = self.offset_index.ENTRY.unpack(offset_tail)
            span = self.next_offset - self.base_offset
            if not (0 < last_rel < span and 0 < position < self.size):
                return None
        return int(max_ts)

    def write(self, plan: AppendPlan[LogSegment]) -> None:
        """Execute ``plan`` (the I/O thread): write, then sync/close/seal as it says.

        Index entries queue up here and reach their files only after the log was synced,
        so a file entry never points at bytes that could still be lost.
        """
        fd = self._take_index_entries(plan)
        if plan.finish < Finish.SYNC:
            if plan.parts:
                pwritev_all(fd, plan.parts, plan.position)
            return
        if plan.parts and self._durable_size == plan.position:
            pwritev_durable(fd, plan.parts, plan.position)  # the common case under "fsync"
        else:
            if plan.parts:
                pwritev_all(fd, plan.parts, plan.position)
            os.fdatasync(fd)
        self.synced(plan)

    def can_sync_apart(self, plan: AppendPlan[LogSegment]) -> bool:
        """Whether ``plan`` can be split in :meth:`write_unsynced`, an fdatasync of the
        returned descriptor and :meth:`synced`: a plain sync of bytes that follow durable
        ones (no seal, no close)."""
        return (
            plan.finish == Finish.SYNC
            and self._fd is not None
            and self._durable_size == plan.position
        )

    def write_unsynced(self, plan: AppendPlan[LogSegment]) -> int:
        """The first half of :meth:`write` for a plan that :meth:`can_sync_apart` (on the
        loop, for a round small enough to copy into the page cache at once): writes its
        bytes, not yet durable; returns the descriptor to fdatasync before :meth:`synced`."""
        fd = self._take_index_entries(plan)
        if plan.parts:
            pwritev_all(fd, plan.parts, plan.position)
        return fd

    def _take_index_entries(self, plan: AppendPlan[LogSegment]) -> int:
        """Queues ``plan``'s index entries for their files (after the sync); the segment's
        descriptor to write it with."""
        fd = self._fd
        assert fd is not None, "write to a segment that is not open for appends"
        self._offset_backlog += plan.offset_entries
        self._time_backlog += plan.time_entries
        return fd

    def synced(self, plan: AppendPlan[LogSegment]) -> None:
        """``plan``'s bytes are durable: its index entries may follow them to their files,
        and a seal or close may follow."""
        self._durable_size = plan.size
        durable = plan.finish >= Finish.CLOSE
        if durable or len(self._offset_backlog) >= _INDEX_BACKLOG_BYTES:
            self.offset_index.append_to_file(self._offset_backlog, fsync=durable)
            self.time_index.append_to_file(self._time_backlog, fsync=durable)
            self._offset_backlog.clear()
            self._time_backlog.clear()
        if plan.finish >= Finish.SEAL:
            fsync_directory(self.directory)  # the index files' names, created lazily
        if plan.finish >= Finish.CLOSE:
            self.close_files()

    def commit(self, plan: AppendPlan[LogSegment]) -> None:
        """Apply a written ``plan`` to the committed state (event-loop thread)."""
        self.offset_index.append_packed(plan.offset_entries)
        self.time_index.append_packed(plan.time_entries)
        self.size = plan.size
        self.next_offset = plan.next_offset
        self.first_timestamp_ms = plan.first_timestamp_ms
        self.max_timestamp_ms = plan.max_timestamp_ms
        self.rolling_base_ms = plan.rolling_base_ms
        self.bytes_since_index = plan.bytes_since_index
        if plan.finish >= Finish.SEAL:
            self.sealed = True

    def close_files(self) -> None:
        self.offset_index.close()
        self.time_index.close()
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def delete_files(self) -> None:
        """Remove the segment's files, the ``.log`` first: without it the rest is debris
        that the next open sweeps away."""
        self.close_files()
        for path in (self.log_path, self.offset_index.path, self.time_index.path):
            path.unlink(missing_ok=True)

    # -- reads (worker threads) ---------------------------------------------------------

    def read(
        self, offset: int, max_records: int, max_bytes: int, limit: int, *, first_free: bool
    ) -> list[Record]:
        """Records at or after ``offset`` within the first ``limit`` bytes of the file.

        Stops before ``max_records`` records or ``max_bytes`` bytes of bodies would be
        exceeded, except that with ``first_free`` the first record is always taken.
        """
        out: list[Record] = []
        budget = max_bytes
        with self._reader(limit) as scanner:
            for position, header in self._batches_from(scanner, offset):
                if header.next_offset <= offset:
                    continue
                for record in scanner.decode(position, header):
                    if record.offset < offset:
                        continue
                    size = len(record.body)
                    if size > budget and not (first_free and not out):
                        return out
                    out.append(record)
                    budget -= size
                    if len(out) >= max_records:
                        return out
        return out

    def read_offsets(
        self, offsets: list[int], limit: int, *, cached_only: bool = False
    ) -> dict[int, Record]:
        """The records at the given (sorted, in-segment) offsets; absent ones are skipped.

        With ``cached_only`` (on the event loop) it raises :class:`NotCached` rather than
        wait for the disk or load or rebuild an index.
        """
        found: dict[int, Record] = {}
        wanted = 0
        with self._reader(limit, cached_only=cached_only) as scanner:
            while wanted < len(offsets):
                target = offsets[wanted]
                for position, header in self._batches_from(scanner, target):
                    if header.next_offset <= target:
                        continue
                    for record in scanner.decode(position, header):
                        found[record.offset] = record
                    break
                wanted += 1
                while wanted < len(offsets) and offsets[wanted] in found:
                    wanted += 1
        return {o: found[o] for o in offsets if o in found}

    def offset_for_timestamp(self, timestamp_ms: int, limit: int) -> int | None:
        """The first offset whose record's timestamp >= ``timestamp_ms``, or None."""
        with self._reader(limit) as scanner:
            self._ensure_indexes(scanner)
            start = self.time_index.lookup(timestamp_ms)
            for position, header in self._batches_from(scanner, start):
                if header.next_offset <= start or header.max_timestamp_ms < timestamp_ms:
                    continue
                for record in scanner.decode(position, header):
                    if record.timestamp_ms >= timestamp_ms:
                        return record.offset
        return None

    @contextmanager
    def _reader(self, limit: int, *, cached_only: bool = False) -> Iterator[BatchScanner]:
        """A scanner over the first ``limit`` bytes, through a descriptor of its own (so a
        concurrent delete or close of the segment cannot pull it away mid-read)."""
        fd = os.open(self.log_path, os.O_RDONLY)
        try:
            yield BatchScanner(fd, self.log_path, limit, cached_only=cached_only)
        finally:
            os.close(fd)

    def _batches_from(
        self, scanner: BatchScanner, offset: int
    ) -> Iterator[tuple[int, BatchHeader]]:
        """The batches from the indexed one at or before ``offset`` to ``limit``, checked
        to carry dense offsets (a gap or overlap is corruption)."""
        position, expected = self._start(scanner, offset)
        while position < scanner.limit:
            header = scanner.header(position)
            if header.base_offset != expected:
                raise CorruptRecordError(
                    f"batch has offset {header.base_offset}, expected {expected}",
                    self.log_path,
                    position,
                )
            yield position, header
            position += header.size
            expected = header.next_offset

    def _start(self, scanner: BatchScanner, offset: int) -> tuple[int, int]:
        """``(position, base offset)`` of the indexed batch at or before ``offset``.

        The entry is trusted only if the batch found there carries the offset it claims;
        otherwise the index is rebuilt (sealed) or bypassed (active, scan from 0).
        """
        self._ensure_indexes(scanner)
        start, position = self.offset_index.lookup(offset)
        if position == 0:
            return 0, self.base_offset
        if position < scanner.limit and _header_offset(scanner, position) == start:
            return position, start
        if scanner.cached_only:
            raise NotCached  # a worker warns and repairs
        log.warning("%s: offset index entry for %d is wrong; rebuilding", self.log_path, start)
        if not self.sealed:
            return 0, self.base_offset
        with self._index_lock:
            self._rebuild_indexes(scanner.fd)
        start, position = self.offset_index.lookup(offset)
        return position, start

    def _ensure_indexes(self, scanner: BatchScanner) -> None:
        if self.offset_index.loaded and self.time_index.loaded:
            return
        if scanner.cached_only:
            raise NotCached  # loading reads index files: a worker's job
        with self._index_lock:
            if self.offset_index.loaded and self.time_index.loaded:
                return
            whole = self.offset_index.load(
                self.offset_index.validator(self.size, self.next_offset)
            ) and self.time_index.load(self.time_index.validator(self.next_offset))
            if not whole or self.time_index.end_offset() != self.next_offset:
                log.warning("%s: index files are damaged; rebuilding", self.log_path)
                self._rebuild_indexes(scanner.fd)

    def _rebuild_indexes(self, fd: int) -> None:
        """Re-derive both indexes from the batch headers and rewrite their files.

        Caller holds ``_index_lock``. A structurally broken batch ends the index there
        (reads that reach it raise :class:`CorruptRecordError`).
        """
        rebuilt = rebuild_index_entries(
            fd, self.log_path, self.size, self.offset_index, self.time_index,
            interval_bytes=self.index_interval_bytes,
        )  # fmt: skip
        self.offset_index.replace(rebuilt.offset_entries)
        self.time_index.replace(rebuilt.time_entries)
        self.max_timestamp_ms = rebuilt.max_timestamp_ms
        if rebuilt.next_offset != self.next_offset:
            log.error(
                "%s: batches end at offset %d but the segment should end at %d",
                self.log_path, rebuilt.next_offset, self.next_offset,
            )  # fmt: skip
        self.offset_index.rewrite()
        self.time_index.rewrite()


def _peek_header(fd: int) -> BatchHeader | None:
    """The header of the batch at position 0, if there is a readable one."""
    try:
        return read_header(pread_exact(fd, BATCH_HEADER.size, 0))
    except CorruptRecordError:
        return None


def _file_tail(path: Path, entry_size: int) -> bytes | None:
    """The last entry of an index file (b"" if empty); None if missing or torn."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        size = os.fstat(fd).st_size
        if size % entry_size:
            return None
        return pread_exact(fd, entry_size, size - entry_size) if size else b""
    finally:
        os.close(fd)


def _header_offset(scanner: BatchScanner, position: int) -> int | None:
    try:
        return scanner.header(position).base_offset
    except CorruptRecordError:
        return None
