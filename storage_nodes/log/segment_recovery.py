"""Deriving a segment's indexes from its log: tail recovery and index rebuilds.

Kafka's ``LogSegment.recover()``: on open, the active segment's batches are checked
from the last trustworthy index entry to the end of the file; the file is cut at the
first batch that is torn, out of sequence or fails its CRC, and the cut is logged with
the number of bytes it removed. Everything before that batch is kept.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from storage_nodes.log.batch_scanner import BatchScanner
from storage_nodes.log.errors import CorruptRecordError
from storage_nodes.log.offset_index import OffsetIndex
from storage_nodes.log.time_index import TimeIndex

__all__ = ["IndexScan", "RecoveredTail", "rebuild_index_entries", "recover_tail"]

log = logging.getLogger(__name__)

_NO_END = 2**63  # the active segment's end is what recovery is finding out


@dataclass(slots=True)
class IndexScan:
    """Index entries derived from the batches between two positions of a log file."""

    end_position: int
    next_offset: int
    max_timestamp_ms: int | None
    bytes_since_index: int = 0
    offset_entries: bytearray = field(default_factory=bytearray)
    time_entries: bytearray = field(default_factory=bytearray)
    problem: str | None = None  # why the scan stopped before the end, if it did


@dataclass(frozen=True, slots=True)
class RecoveredTail:
    """The active segment's state after recovery."""

    size: int
    next_offset: int
    max_timestamp_ms: int | None
    bytes_since_index: int
    first_batch_timestamps: tuple[int | None, int | None]  # (first, max) of batch 0


def scan_batches(
    scanner: BatchScanner,
    offset_index: OffsetIndex,
    time_index: TimeIndex,
    start: IndexScan,
    interval_bytes: int,
    *,
    verify_crc: bool,
) -> IndexScan:
    """Walk batches from ``start.end_position`` to ``scanner.limit``, adding the index
    entries an append would have added; stop (setting ``problem``) at the first bad one.

    The batch at the start position is assumed to have its index entry already.
    """
    scan = start
    first_position = start.end_position
    while scan.end_position < scanner.limit:
        position = scan.end_position
        try:
            header = scanner.header(position)
            if header.base_offset != scan.next_offset:
                raise CorruptRecordError(
                    f"batch has offset {header.base_offset}, expected {scan.next_offset}"
                )
            if verify_crc:
                scanner.verify(position, header)
        except CorruptRecordError as exc:
            scan.problem = str(exc)
            break
        if position > first_position and scan.bytes_since_index >= interval_bytes:
            assert scan.max_timestamp_ms is not None
            scan.offset_entries += offset_index.pack(header.base_offset, position)
            scan.time_entries += time_index.pack(scan.max_timestamp_ms, header.base_offset)
            scan.bytes_since_index = 0
        scan.bytes_since_index += header.size
        scan.end_position = position + header.size
        scan.next_offset = header.next_offset
        if scan.max_timestamp_ms is None or header.max_timestamp_ms > scan.max_timestamp_ms:
            scan.max_timestamp_ms = header.max_timestamp_ms
    return scan


def rebuild_index_entries(
    fd: int,
    path: Path,
    size: int,
    offset_index: OffsetIndex,
    time_index: TimeIndex,
    *,
    interval_bytes: int,
) -> IndexScan:
    """All index entries of a sealed segment, final time-index entry included.

    Headers only (no CRC: reads check it); a structurally bad batch ends the scan.
    """
    scanner = BatchScanner(fd, path, size)
    start = IndexScan(0, offset_index.base_offset, None)
    scan = scan_batches(scanner, offset_index, time_index, start, interval_bytes, verify_crc=False)
    if scan.problem is not None:
        log.error("%s: index rebuild stopped at byte %d: %s", path, scan.end_position, scan.problem)
    if scan.max_timestamp_ms is not None:
        scan.time_entries += time_index.pack(scan.max_timestamp_ms, scan.next_offset)
    return scan


def recover_tail(
    fd: int, path: Path, offset_index: OffsetIndex, time_index: TimeIndex, interval_bytes: int
) -> RecoveredTail:
    """Recover the active segment open at ``fd``: verify, cut, re-index (worker thread).

    Index entries are trusted as a starting point only as far as they validate and the
    batch they point at passes its checks; otherwise the whole segment is scanned. The
    cut is fsynced before returning, and both index files are rewritten to match.
    """
    size = os.fstat(fd).st_size
    offset_index.load(offset_index.validator(size, _NO_END))
    time_index.load(time_index.validator(_NO_END))
    kept_offsets, kept_times, start = _restart_point(offset_index, time_index)
    scanner = BatchScanner(fd, path, size)
    scan = scan_batches(scanner, offset_index, time_index, start, interval_bytes, verify_crc=True)
    if scan.problem is not None and scan.end_position == start.end_position > 0:
        log.warning("%s: last index entry points at a bad batch; scanning from the start", path)
        kept_offsets = kept_times = 0
        start = IndexScan(0, offset_index.base_offset, None)
        scan = scan_batches(
            scanner, offset_index, time_index, start, interval_bytes, verify_crc=True
        )
    if scan.end_position < size:
        log.warning(
            "%s: cut %d bytes after the last intact batch, at byte %d (%s)",
            path, size - scan.end_position, scan.end_position, scan.problem,
        )  # fmt: skip
        os.ftruncate(fd, scan.end_position)
        os.fsync(fd)
    for index, kept, entries in (
        (offset_index, kept_offsets, scan.offset_entries),
        (time_index, kept_times, scan.time_entries),
    ):
        index.truncate(kept)
        index.append_packed(entries)
        index.rewrite()
    return RecoveredTail(
        scan.end_position,
        scan.next_offset,
        scan.max_timestamp_ms,
        scan.bytes_since_index,
        _first_batch_timestamps(scanner, scan.end_position),
    )


def _restart_point(offset_index: OffsetIndex, time_index: TimeIndex) -> tuple[int, int, IndexScan]:
    """The last offset-index entry with a time-index entry for the same offset.

    Returns how many entries of each index to keep (up to and including that pair) and
    the scan state at that batch. Both entries are written together, so normally this
    is the last entry of each; a final "sealed" time entry without a partner is dropped.
    """
    base = offset_index.base_offset
    for i in range(len(offset_index) - 1, -1, -1):
        rel, position = offset_index.entry(i)
        j = time_index.last_at_or_before(base + rel)
        if j >= 0 and time_index.entry(j)[1] == rel:
            return i + 1, j + 1, IndexScan(position, base + rel, time_index.entry(j)[0])
    return 0, 0, IndexScan(0, base, None)


def _first_batch_timestamps(scanner: BatchScanner, size: int) -> tuple[int | None, int | None]:
    if size == 0:
        return None, None
    try:
        header = scanner.header(0)
    except CorruptRecordError:
        log.exception("%s: first batch header is unreadable", scanner.path)
        return None, None
    return header.first_timestamp_ms, header.max_timestamp_ms
