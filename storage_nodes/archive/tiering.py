"""Tiering: sealed segments go to the archive, and local copies go once they are there.

One loop per storage node, every `check_interval_ms`, over the partitions the node has
open:

1. **Seal by age.** An active segment whose first batch is older than the log's
   `segment_max_age_ms` is rolled even if no append comes, so the archive is never more
   than that behind the log.
2. **Upload.** Each sealed segment past the manifest's end: its `.log` (as `.seg`), its
   two indexes, then the manifest, replaced under fencing (manifest.py) to list it. An
   upload a crash cuts short is never listed, and so never read; the next attempt writes
   the same keys again. The stream's descriptor and name entry go up before its first
   segment.
3. **Drop local copies** of tiered segments, oldest first, while the partition is over
   its local retention (`local_retention_bytes`, `local_retention_ms`), or while the node
   is over its disk budget.
4. **Archive retention** (`archive_retention_ms`, none by default): every
   `retention_check_interval_ms`, segments older than it leave the archive (retention.py).

Object store down: the loop backs off (exponentially, with jitter) and tries again; local
segments are kept meanwhile. Past the disk budget, appends are refused
(`DiskBudgetExceeded`, which the gateway answers with 503) until tiering frees space.

Deleting a stream writes `deleted.json` (layout.py) with the time from which its objects
may go (`delete_grace_ms` later), and the loop deletes them once that time has passed.
Streams deleted here are remembered in `<node dir>/archive-deletions.json` until done, so
a restart or an outage of the store loses none.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import google_crc32c
import orjson

from control_plane.clock import Clock
from storage_nodes import metrics
from storage_nodes.archive import layout
from storage_nodes.archive.manifest import Fenced, Manifest, Manifests, SegmentEntry
from storage_nodes.archive.object_store import ObjectNotFound, ObjectStoreError
from storage_nodes.archive.retention import expire
from storage_nodes.log.partition_log import PartitionLog, SegmentInfo

log = logging.getLogger(__name__)

DAY_MS = 24 * 3600 * 1000
STREAM_DESCRIPTOR = "stream.json"  # in a stream's local directory, as written by the node
# A partition's archived end once a newer writer fenced this node off: nothing more of it
# is uploaded from here.
_FENCED_END = 1 << 62


@dataclass(frozen=True, slots=True)
class TieringConfig:
    writer_epoch: int = 0  # the fencing epoch of this node's writes (manifest.py)
    local_retention_bytes: int = 1 << 30  # per partition, of tiered segments kept
    local_retention_ms: int = DAY_MS
    disk_budget_bytes: int | None = None  # all partitions' .log bytes; None: no budget
    delete_grace_ms: int = 7 * DAY_MS
    archive_retention_ms: int | None = None  # None: the archive keeps every segment
    retention_check_interval_ms: int = 60_000
    check_interval_ms: int = 1_000
    retry_min_ms: int = 500
    retry_max_ms: int = 30_000


@dataclass(frozen=True, slots=True)
class TieringStatus:
    """What the archive holds of one partition, beside the local log."""

    archive_url: str
    partition: int
    segments: tuple[SegmentEntry, ...]
    archive_start_offset: int
    archive_end_offset: int  # one past the last archived offset
    log_start_offset: int  # the first offset still on local disk
    log_end_offset: int
    tiered_bytes: int
    local_bytes: int
    newest_archived_ms: int | None  # the newest record's timestamp in the archive

    @property
    def records_behind(self) -> int:
        """Records in the log that the archive does not hold yet."""
        return self.log_end_offset - self.archive_end_offset


Logs = Callable[[], Mapping[tuple[str, int], PartitionLog]]


class Tiering:
    def __init__(
        self,
        manifests: Manifests,
        config: TieringConfig,
        clock: Clock,
        node_dir: Path,
    ) -> None:
        self._manifests = manifests
        self._store = manifests.store
        self.config = config
        self._clock = clock
        self._streams_dir = node_dir / "streams"
        self._deletions_path = node_dir / "archive-deletions.json"
        self._deletions: dict[str, dict[str, int]] = _read_json(self._deletions_path)
        # Written by the event loop (a stream dropped) and by the round's worker thread.
        self._deletions_lock = threading.Lock()
        self._described: set[str] = set()
        self._tiered_end: dict[tuple[str, int], int] = {}
        # Partitions this node took over under a lease: their writer epoch (above every
        # earlier writer's), instead of the node's own.
        self._writer_epochs: dict[tuple[str, int], int] = {}
        self._failures = 0
        self._retry_at_ms = 0
        self._retention_due_ms = 0
        self._task: asyncio.Task[None] | None = None
        self.local_bytes = 0  # all partitions' .log bytes, as of the last tick and appends
        self.last_error: str | None = None

    @property
    def url(self) -> str:
        return self._store.url

    @property
    def manifests(self) -> Manifests:
        return self._manifests

    @property
    def over_budget(self) -> bool:
        budget = self.config.disk_budget_bytes
        return budget is not None and self.local_bytes > budget

    def start(self, logs: Logs, prepare: Callable[[], Awaitable[None]] | None = None) -> None:
        """Runs the loop over `logs()`, after `prepare()` (opening what is on disk)."""
        self._task = asyncio.create_task(self._run(logs, prepare), name="tiering")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self, logs: Logs, prepare: Callable[[], Awaitable[None]] | None) -> None:
        if prepare is not None:
            try:
                await prepare()
            except Exception:  # tier what could be opened; the rest opens on first use
                log.exception("opening the partitions on disk failed")
        while True:
            try:
                await self.tick(logs())
            except asyncio.CancelledError:
                raise
            except Exception:  # a bug must not stop tiering for good: log it, go on
                log.exception("tiering failed; trying again")
            await asyncio.sleep(self.config.check_interval_ms / 1000)

    async def tick(self, logs: Mapping[tuple[str, int], PartitionLog]) -> None:
        """One round over the partitions: seal, upload, drop local copies, delete."""
        now_ms = self._clock.now_ms()
        for partition_log in logs.values():
            age_ms = partition_log.active_age_ms(now_ms)
            if age_ms is not None and age_ms >= partition_log.config.segment_max_age_ms:
                await partition_log.roll()
        if now_ms >= self._retry_at_ms:
            try:
                for (stream_id, partition), partition_log in list(logs.items()):
                    await self._upload(stream_id, partition, partition_log)
                await asyncio.to_thread(self._delete_due, now_ms)
                await self._expire(list(logs), now_ms)
            except ObjectStoreError as exc:
                self._failed(exc, now_ms)
            else:
                if self._failures:
                    log.info("archive %s: uploads resumed", self.url)
                self._failures, self.last_error = 0, None
        self.local_bytes = sum(p.local_bytes for p in logs.values())
        for (stream_id, partition), partition_log in list(logs.items()):
            await self._drop_local(stream_id, partition, partition_log, now_ms)
        self.local_bytes = sum(p.local_bytes for p in logs.values())
        self._report_lag(logs, now_ms)

    def _report_lag(self, logs: Mapping[tuple[str, int], PartitionLog], now_ms: int) -> None:
        """The tiering gauges, as of the end of a round."""
        lag_records = pending_bytes = lag_ms = 0
        for key, partition_log in logs.items():
            tiered_end = max(self._tiered_end.get(key, 0), 0)
            lag_records += max(partition_log.end_offset - tiered_end, 0)
            pending = [s for s in partition_log.sealed_segments() if s.end_offset > tiered_end]
            pending_bytes += sum(s.size_bytes for s in pending)
            if pending and pending[0].first_timestamp_ms is not None:
                lag_ms = max(lag_ms, now_ms - pending[0].first_timestamp_ms)
            elif partition_log.end_offset > tiered_end:
                lag_ms = max(lag_ms, partition_log.active_age_ms(now_ms) or 0)
        metrics.TIERING_LAG_RECORDS.set(lag_records)
        metrics.TIERING_LAG_SECONDS.set(lag_ms / 1000)
        metrics.TIERING_PENDING_BYTES.set(pending_bytes)
        metrics.LOCAL_LOG_BYTES.set(self.local_bytes)

    async def _expire(self, partitions: list[tuple[str, int]], now_ms: int) -> None:
        retention_ms = self.config.archive_retention_ms
        if retention_ms is None or now_ms < self._retention_due_ms:
            return
        self._retention_due_ms = now_ms + self.config.retention_check_interval_ms
        for stream_id, partition in partitions:
            try:
                await asyncio.to_thread(
                    expire,
                    self._manifests,
                    stream_id,
                    partition,
                    self._writer_epoch(stream_id, partition),
                    now_ms - retention_ms,
                )
            except Fenced as exc:
                log.error("archive %s: %s; retention left to the newer writer", self.url, exc)

    def _failed(self, exc: ObjectStoreError, now_ms: int) -> None:
        self._failures += 1
        metrics.TIERING_FAILURES.inc()
        delay_ms = min(self.config.retry_max_ms, self.config.retry_min_ms << (self._failures - 1))
        delay_ms = int(delay_ms * random.uniform(0.5, 1.5))  # jitter: nodes do not retry in step
        self._retry_at_ms = now_ms + delay_ms
        self.last_error = str(exc)
        log.warning(
            "archive %s: %s; local segments are kept, trying again in %.1f s",
            self.url,
            exc,
            delay_ms / 1000,
        )

    # -- ownership ----------------------------------------------------------------------

    def adopt(self, stream_id: str, partition: int, writer_epoch: int) -> None:
        """This node now owns the partition (it took its lease): its segments are written
        under `writer_epoch`, and what the archive holds is read again (another node may
        have tiered it since)."""
        self._writer_epochs[(stream_id, partition)] = writer_epoch
        self._tiered_end.pop((stream_id, partition), None)

    async def archive_now(
        self, stream_id: str, partition: int, partition_log: PartitionLog
    ) -> None:
        """Seals the active segment and uploads every segment not yet archived, so that
        the next owner finds the whole partition in the archive (a graceful hand-over).
        Raises ObjectStoreError when the archive cannot take them."""
        await partition_log.roll()
        await self._upload(stream_id, partition, partition_log)

    def archived_end(self, stream_id: str, partition: int) -> int:
        """Where the archive's copy of the partition ends, as this node last wrote or
        read it; 0 when it does not know (nothing uploaded yet, or fenced)."""
        end = self._tiered_end.get((stream_id, partition), 0)
        return end if 0 <= end < _FENCED_END else 0

    def writer_epoch(self, stream_id: str, partition: int) -> int:
        """The epoch this node's archive writes of the partition carry."""
        return self._writer_epoch(stream_id, partition)

    def _writer_epoch(self, stream_id: str, partition: int) -> int:
        return self._writer_epochs.get((stream_id, partition), self.config.writer_epoch)

    # -- uploading ----------------------------------------------------------------------

    async def _upload(self, stream_id: str, partition: int, partition_log: PartitionLog) -> None:
        key = (stream_id, partition)
        if key not in self._tiered_end:
            manifest, _ = await asyncio.to_thread(self._manifests.read, stream_id, partition)
            self._tiered_end[key] = manifest.end_offset if manifest else -1
        for segment in partition_log.sealed_segments():
            tiered_end = self._tiered_end[key]
            if segment.end_offset <= tiered_end or segment.end_offset == segment.base_offset:
                continue
            if stream_id not in self._described:
                await asyncio.to_thread(self._describe, stream_id)
            try:
                manifest = await asyncio.to_thread(
                    self._upload_segment, stream_id, partition, segment
                )
            except Fenced as exc:
                log.error("archive %s: %s; this node stops tiering it", self.url, exc)
                self._tiered_end[key] = _FENCED_END
                return
            self._tiered_end[key] = manifest.end_offset

    def _describe(self, stream_id: str) -> None:
        path = self._streams_dir / stream_id / STREAM_DESCRIPTOR
        try:
            data = path.read_bytes()
        except FileNotFoundError:  # a stream from before descriptors: by its id only
            self._described.add(stream_id)
            return
        descriptor = orjson.loads(data)
        self._store.put_bytes(layout.stream_descriptor(stream_id), data)
        self._store.put_bytes(layout.name_entry_of(descriptor), data)
        self._described.add(stream_id)

    def _upload_segment(self, stream_id: str, partition: int, segment: SegmentInfo) -> Manifest:
        entry = self.put_segment(
            stream_id, partition, segment, self._writer_epoch(stream_id, partition)
        )
        stem = entry.stem(stream_id, partition)

        def listed(manifest: Manifest) -> Manifest:
            if entry.end_offset <= manifest.end_offset:
                return manifest  # listed already (a retry after the put succeeded)
            if (manifest.segments or manifest.pending) and entry.base_offset != manifest.end_offset:
                raise ObjectStoreError(
                    f"{stem}: the archive ends at {manifest.end_offset}, not at "
                    f"{entry.base_offset}: the segments between are missing"
                )
            return replace(manifest, segments=(*manifest.segments, entry))

        manifest = self._manifests.update(
            stream_id, partition, self._writer_epoch(stream_id, partition), listed
        )
        log.info("archive %s: tiered %s (%d bytes)", self.url, stem, segment.size_bytes)
        metrics.TIERED_BYTES.inc(segment.size_bytes)
        metrics.TIERED_SEGMENTS.inc()
        return manifest

    def put_segment(
        self, stream_id: str, partition: int, segment: SegmentInfo, writer_epoch: int
    ) -> SegmentEntry:
        """Uploads a sealed segment's objects (blocking); the manifest is left to the
        caller. Idempotent: the same segment writes the same keys."""
        stem = layout.segment_stem(stream_id, partition, segment.base_offset, segment.end_offset)
        crc = _crc32c(segment.log_path)
        self._store.put_file(layout.segment_log(stem), segment.log_path)
        self._store.put_file(layout.segment_index(stem), segment.offset_index_path)
        self._store.put_file(layout.segment_time_index(stem), segment.time_index_path)
        uploaded = self._store.head(layout.segment_log(stem))
        if uploaded is None or uploaded.size != segment.size_bytes:
            raise ObjectStoreError(f"{stem}.seg: the store holds other bytes than were sent")
        return SegmentEntry(
            base_offset=segment.base_offset,
            end_offset=segment.end_offset,
            first_timestamp_ms=segment.first_timestamp_ms,
            max_timestamp_ms=segment.max_timestamp_ms,
            bytes=segment.size_bytes,
            index_bytes=segment.offset_index_path.stat().st_size,
            time_index_bytes=segment.time_index_path.stat().st_size,
            crc32c=f"{crc:08x}",
            writer_epoch=writer_epoch,
        )

    # -- local copies -------------------------------------------------------------------

    async def _drop_local(
        self, stream_id: str, partition: int, partition_log: PartitionLog, now_ms: int
    ) -> None:
        tiered_end = self._tiered_end.get((stream_id, partition), -1)
        sealed = [s for s in partition_log.sealed_segments() if s.end_offset <= tiered_end]
        if not sealed:
            return
        local_bytes = partition_log.local_bytes
        budget = self.config.disk_budget_bytes
        node_excess = 0 if budget is None else self.local_bytes - budget
        bound = None
        for segment in sealed:
            too_old = (segment.max_timestamp_ms or 0) < now_ms - self.config.local_retention_ms
            too_big = local_bytes > self.config.local_retention_bytes
            if not (too_old or too_big or node_excess > 0):
                break
            bound = segment.end_offset
            local_bytes -= segment.size_bytes
            node_excess -= segment.size_bytes
        if bound is not None:
            await partition_log.delete_segments_below(bound)

    # -- status -------------------------------------------------------------------------

    async def status(
        self, stream_id: str, partition: int, partition_log: PartitionLog
    ) -> TieringStatus:
        manifest, _ = await asyncio.to_thread(self._manifests.read, stream_id, partition)
        manifest = manifest or Manifest(stream_id, partition, 0)
        newest = [s.max_timestamp_ms for s in manifest.segments if s.max_timestamp_ms]
        return TieringStatus(
            archive_url=self.url,
            partition=partition,
            segments=manifest.segments,
            archive_start_offset=manifest.start_offset,
            archive_end_offset=manifest.end_offset,
            log_start_offset=partition_log.start_offset,
            log_end_offset=partition_log.end_offset,
            tiered_bytes=manifest.total_bytes,
            local_bytes=partition_log.local_bytes,
            newest_archived_ms=max(newest) if newest else None,
        )

    # -- deleted streams ----------------------------------------------------------------

    async def stream_dropped(self, stream_id: str) -> None:
        """Remembers the stream for its deletion marker and, after the grace, removal."""
        now_ms = self._clock.now_ms()
        self._deletions[stream_id] = {
            "deleted_ms": now_ms,
            "delete_after_ms": now_ms + self.config.delete_grace_ms,
            "marked": 0,
        }
        self._described.discard(stream_id)
        for key in [k for k in self._tiered_end if k[0] == stream_id]:
            del self._tiered_end[key]
        # In a worker thread: on a busy disk the file's rename waited 212 ms for the
        # file system's journal once, and the event loop with it (docs/performance.md).
        await asyncio.to_thread(self._save_deletions)

    def _save_deletions(self) -> None:
        with self._deletions_lock:
            _write_json(self._deletions_path, self._deletions)

    def _delete_due(self, now_ms: int) -> None:
        changed = False
        for stream_id, deletion in list(self._deletions.items()):
            if not deletion["marked"]:
                marker = {"format": layout.FORMAT_VERSION, **{
                    k: deletion[k] for k in ("deleted_ms", "delete_after_ms")
                }}  # fmt: skip
                self._store.put_bytes(layout.deletion_marker(stream_id), orjson.dumps(marker))
                deletion["marked"], changed = 1, True
            if now_ms >= deletion["delete_after_ms"]:
                self._delete_stream(stream_id)
                del self._deletions[stream_id]
                changed = True
        if changed:
            self._save_deletions()

    def _delete_stream(self, stream_id: str) -> None:
        marker = layout.deletion_marker(stream_id)
        descriptor = None
        with contextlib.suppress(ObjectNotFound):
            descriptor = orjson.loads(self._store.get_bytes(layout.stream_descriptor(stream_id)))
        for info in list(self._store.list(layout.stream_prefix(stream_id))):
            if info.key != marker:
                self._store.delete(info.key)
        if descriptor is not None:
            self._store.delete(layout.name_entry_of(descriptor))
        self._store.delete(marker)  # last: a crash before it leaves the marker to retry
        log.info("archive %s: deleted stream %s after its grace period", self.url, stream_id)


def _crc32c(path: Path) -> int:
    crc = 0
    with path.open("rb") as file:
        while chunk := file.read(1 << 20):
            crc = google_crc32c.extend(crc, chunk)
    return crc


def _read_json(path: Path) -> dict[str, dict[str, int]]:
    try:
        loaded: dict[str, dict[str, int]] = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        return {}
    return loaded


def _write_json(path: Path, value: object) -> None:
    """Whole or not at all: synced before it is renamed over the old file, so that a
    crash leaves the old file or the new one, never an empty one."""
    data = orjson.dumps(value)  # the GIL held throughout: a consistent copy
    tmp = path.with_suffix(".tmp")
    with tmp.open("wb") as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())
    tmp.replace(path)
