"""A partition's durable log: the API the storage node and the gateway call."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Literal, ParamSpec, TypeVar

from control_plane.clock import SystemClock
from storage_nodes.log.errors import LogClosedError, LogStorageError
from storage_nodes.log.fileio import NotCached, fsync_directory, in_worker
from storage_nodes.log.log_config import DEFAULT_CONFIG, Durability, LogConfig
from storage_nodes.log.log_loader import load_segments
from storage_nodes.log.log_writer import LogStats, LogWriter
from storage_nodes.log.record import Record, RecordIn
from storage_nodes.log.record_batch import encode_batch
from storage_nodes.log.segment import LogSegment, SegmentInfo
from storage_nodes.log.segments import LogSegments
from storage_nodes.log.tail_cache import PartitionTail

__all__ = ["Durability", "LogConfig", "LogStats", "PartitionLog", "SegmentInfo"]

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

# A read of at most this many offsets (a receive is at most 100) is first tried on the
# event loop, from the page cache only: a hop to a worker thread and back cost more than
# decoding a claim's records, and the worker then competes with the loop for the GIL.
_CACHED_READ_MAX_OFFSETS = 256
# The default time of a log (segment ages): the one clock abstraction every package uses.
_SYSTEM_CLOCK = SystemClock()


class PartitionLog:
    """An append-only log of records with dense offsets, in one directory of segments.

    Guarantees:

    * Offsets are dense from ``start_offset`` to ``end_offset``; an append's records
      get consecutive offsets in the order of the ``append`` calls' queueing.
    * ``append`` returns once its batch is durable per ``LogConfig.durability``. Under
      ``"fsync"`` that means fsynced; concurrent appends share one write and one fsync.
    * Readers see only appends that have returned or are returning (a round is readable
      once its I/O is done), never a partial batch, never a record that fails its CRC
      (a corrupt sealed batch raises :class:`CorruptRecordError`).
    * Retention removes whole sealed segments from the oldest on; the active segment is
      never removed, so offsets never go back.
    * On open, the active segment's tail is checked and a torn tail cut (logged).

    Disk I/O always runs in worker threads; the event loop never waits on the disk. A
    small :meth:`read_offsets` whose bytes are all in the page cache is served on the loop
    (``preadv2(RWF_NOWAIT)``, which never waits); otherwise it goes to a worker as well.
    With a tail (``tail_cache.py``), :meth:`read_offsets` first takes what it holds of the
    batches this log object appended last, without reading them from the segments again.

    Thread-safety: use one log object from one event loop (the one it was opened in).
    Two log objects must never open the same directory.
    """

    def __init__(
        self,
        directory: Path,
        config: LogConfig,
        now_ms: Callable[[], int],
        segments: LogSegments,
        tail: PartitionTail | None = None,
    ) -> None:
        """Use :meth:`open`."""
        self.directory = directory
        self.config = config
        self._now_ms = now_ms
        self._segments = segments
        self._tail = tail
        self._writer = LogWriter(directory, segments, config, now_ms)
        self._closed = False

    @classmethod
    async def open(
        cls,
        directory: Path,
        config: LogConfig = DEFAULT_CONFIG,
        now_ms: Callable[[], int] = _SYSTEM_CLOCK.now_ms,
        tail: PartitionTail | None = None,
    ) -> PartitionLog:
        """Open (creating if absent) the log in ``directory`` and recover its tail. With
        ``tail`` (a new one, of the node's tail cache), reads are served from the records
        it keeps of this log's appends."""
        segments = await in_worker(load_segments, directory, config.index_interval_bytes, now_ms())
        return cls(directory, config, now_ms, LogSegments(segments), tail)

    # -- offsets ------------------------------------------------------------------------

    @property
    def start_offset(self) -> int:
        """The lowest offset still stored (retention moves it up)."""
        return self._segments.first.base_offset

    @property
    def end_offset(self) -> int:
        """One past the last readable record: the next offset to assign when no append
        is in flight. Every offset below it has been acknowledged."""
        return self._segments.active.next_offset

    @property
    def stats(self) -> LogStats:
        return self._writer.stats

    @property
    def local_bytes(self) -> int:
        """Bytes of the segments' .log files on this disk (indexes not counted)."""
        return sum(segment.size for segment in self._segments)

    def active_age_ms(self, now_ms: int) -> int | None:
        """How long ago the active segment's first batch was placed; None if it is empty.
        Tiering seals a segment older than ``segment_max_age_ms`` that no append rolled."""
        active = self._segments.active
        if active.size == 0 or active.rolling_base_ms is None:
            return None
        return now_ms - active.rolling_base_ms

    # -- writing ------------------------------------------------------------------------

    async def append(self, records: Sequence[RecordIn]) -> int:
        """Append ``records`` as one batch; return the offset of the first.

        The records get offsets ``base .. base + len(records) - 1``. Raises
        :class:`InvalidRecordError` for an empty or unencodable batch,
        :class:`LogClosedError` after :meth:`close`, :class:`LogStorageError` if the disk
        failed (this write or an earlier one). If the caller is cancelled the batch may
        still be written.
        """
        self._check_open()
        batch = encode_batch(records)
        base = await self._writer.append(batch)
        if self._tail is not None and not self._closed:
            self._tail.put(base, batch.covered, records)
        return base

    async def roll(self) -> None:
        """Seal the active segment and start a new one (no-op if the active is empty)."""
        await self._writer.roll()

    async def close(self) -> None:
        """Finish queued appends, fsync, and close. Idempotent."""
        self._closed = True
        if self._tail is not None:
            self._tail.close()
        await self._writer.close()

    # -- reading ------------------------------------------------------------------------

    async def read(
        self, offset: int, max_records: int = 500, max_bytes: int = 1 << 20
    ) -> list[Record]:
        """Records from the first one at or after ``offset``, in offset order.

        At most ``max_records`` records, and bodies totalling at most ``max_bytes``,
        except that the first record is returned whatever its size. An empty list means
        there is no record at or after ``offset`` (yet).
        """
        if max_records < 1 or max_bytes < 0:
            raise ValueError("max_records must be >= 1 and max_bytes >= 0")
        self._check_open()
        out: list[Record] = []
        offset = max(offset, self.start_offset)
        for segment in self._segments.starting_at(offset):
            end = segment.next_offset  # snapshot: the limit and the end go together
            if end <= offset:
                continue
            got = await self._read_segment(
                segment, offset, max_records - len(out), max_bytes, not out
            )
            if got is None:  # deleted by retention meanwhile: what follows still counts
                offset = end
                continue
            out += got
            max_bytes -= sum(len(record.body) for record in got)
            if len(out) >= max_records or not got or got[-1].offset + 1 < end:
                break  # full, or the byte budget stopped it before the segment's end
            offset = end
        return out

    async def _read_segment(
        self, segment: LogSegment, offset: int, max_records: int, max_bytes: int, first: bool
    ) -> list[Record] | None:
        limit = segment.size
        got: list[Record] | None = await self._segment_io(
            segment, None, segment.read, offset, max_records, max_bytes, limit, first_free=first
        )
        return got

    async def read_offsets(self, offsets: Sequence[int]) -> dict[int, Record]:
        """The records at ``offsets`` (any order, duplicates allowed); offsets that do not
        exist (deleted by retention, or not yet written) are simply absent."""
        self._check_open()
        start, end = self.start_offset, self.end_offset
        wanted_offsets: Iterable[int] = sorted({o for o in offsets if start <= o < end})
        found: dict[int, Record] = {}
        if self._tail is not None:
            found, wanted_offsets = self._tail.get(wanted_offsets)
            if not wanted_offsets:
                return found
        by_segment: dict[int, list[int]] = {}
        for offset in wanted_offsets:
            by_segment.setdefault(self._segments.containing(offset), []).append(offset)
        segments = list(self._segments)
        for index, wanted in by_segment.items():
            segment = segments[index]
            if len(wanted) <= _CACHED_READ_MAX_OFFSETS:
                cached = self._read_cached(segment, wanted)
                if cached is not None:
                    found |= cached
                    continue
            found |= await self._segment_io(segment, {}, segment.read_offsets, wanted, segment.size)
        return found

    def _read_cached(self, segment: LogSegment, offsets: list[int]) -> dict[int, Record] | None:
        """``segment.read_offsets`` on the loop if the page cache can serve it, else None."""
        try:
            return segment.read_offsets(offsets, segment.size, cached_only=True)
        except NotCached:
            return None
        except OSError as exc:
            if segment.deleted and isinstance(exc, FileNotFoundError):
                return {}  # deleted by retention meanwhile, as _segment_io reads it
            raise LogStorageError(f"LogSegment.read_offsets: {exc}") from exc

    async def offset_for_timestamp(self, timestamp_ms: int) -> int:
        """The first offset whose record's timestamp is >= ``timestamp_ms``, or
        ``end_offset`` if there is none. Exact even if producers' clocks stepped back."""
        self._check_open()
        for segment in self._segments:
            if segment.max_timestamp_ms is None or segment.max_timestamp_ms < timestamp_ms:
                continue
            found = await self._segment_io(
                segment, None, segment.offset_for_timestamp, timestamp_ms, segment.size
            )
            if found is not None:
                return found
        return self.end_offset

    async def _segment_io(
        self, segment: LogSegment, if_deleted: T, function: Callable[P, T],
        *args: P.args, **kwargs: P.kwargs,
    ) -> T:  # fmt: skip
        """Run a segment read in a worker; a segment that retention deleted meanwhile
        reads as ``if_deleted`` rather than as an error."""
        try:
            return await in_worker(function, *args, **kwargs)
        except LogStorageError as exc:
            if segment.deleted and isinstance(exc.__cause__, FileNotFoundError):
                return if_deleted
            raise

    # -- retention ----------------------------------------------------------------------

    async def delete_segments_below(self, offset: int) -> int:
        """Delete the oldest sealed segments whose every record is below ``offset`` (the
        ack floor); returns how many were deleted."""
        return await self._delete_oldest(lambda s: s.next_offset <= offset, "below", offset)

    async def delete_segments_older_than(self, timestamp_ms: int) -> int:
        """Delete the oldest sealed segments whose every timestamp is below
        ``timestamp_ms``; returns how many were deleted. Stops at the first younger one,
        so offsets stay dense."""
        return await self._delete_oldest(
            lambda s: s.max_timestamp_ms is not None and s.max_timestamp_ms < timestamp_ms,
            "older than",
            timestamp_ms,
        )

    async def _delete_oldest(
        self, doomed: Callable[[LogSegment], bool], reason: Literal["below", "older than"],
        bound: int,
    ) -> int:  # fmt: skip
        self._check_open()
        count = 0
        for segment in self._segments.sealed():
            if not doomed(segment):
                break
            count += 1
        if not count:
            return 0
        removed = self._segments.remove_oldest(count)
        for segment in removed:
            segment.deleted = True
        await in_worker(_delete_files, removed, self.directory)
        log.info("%s: deleted %d segments %s %d", self.directory, count, reason, bound)
        return count

    def sealed_segments(self) -> list[SegmentInfo]:
        """Base/end offsets, timestamps and paths of the sealed segments, oldest first."""
        return [segment.info() for segment in self._segments.sealed()]

    def _check_open(self) -> None:
        if self._closed:
            raise LogClosedError(f"the log in {self.directory} is closed")


def _delete_files(segments: Iterable[LogSegment], directory: Path) -> None:
    # Oldest first: a crash part-way leaves the newer segments, still contiguous.
    for segment in segments:
        segment.delete_files()
    fsync_directory(directory)
