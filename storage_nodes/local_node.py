"""A storage node in this process: the partition logs of the streams it serves, under one
directory. It implements storage_nodes.node.Node.

Layout: `<data dir>/streams/<stream id>/<partition>/` holds one partition's segments.
The node keeps no metadata of its own (DESIGN.md section 4): which streams exist is the
control plane's business, and a partition's log is opened the first time it is used.

In the embedded launcher the gateway calls this object in-process, through the Node
interface only; the same methods are the node's internal API when it runs on its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import re
import shutil
from collections.abc import Sequence
from pathlib import Path

import orjson

from control_plane.clock import Clock, SystemClock
from storage_nodes.archive.object_store import ObjectStoreError
from storage_nodes.archive.remote_reads import ArchiveReader
from storage_nodes.archive.tiering import STREAM_DESCRIPTOR, Tiering, TieringStatus
from storage_nodes.log import kernel_sync
from storage_nodes.log.errors import LogClosedError, LogStorageError
from storage_nodes.log.log_config import LogConfig
from storage_nodes.log.log_loader import start_log_at
from storage_nodes.log.partition_log import PartitionLog
from storage_nodes.log.tail_cache import TailCache
from storage_nodes.node import (
    Absence,
    ArchiveUnavailable,
    DiskBudgetExceeded,
    NodeError,
    Record,
    RecordIn,
    Replication,
    StorageUnavailable,
    StreamDescriptor,
    StreamDropped,
)

log = logging.getLogger(__name__)

_STREAM_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")
# After a failed write, the node counts as ready again once this much disk is free.
_FREE_BYTES_TO_RECOVER = 16 * 1024 * 1024
# What the node keeps of its partitions' latest appends for the consumers reading right
# behind them (storage_nodes/log/tail_cache.py): ~180 000 records of 256 bytes.
DEFAULT_TAIL_CACHE_BYTES = 64 * 1024 * 1024
# A time lookup that raced the local log's start moving up (segments dropped once tiered)
# is done again, at most this many times in all.
_TIME_LOOKUP_TRIES = 3


class LocalNode:
    """Not thread-safe: use from one event loop. Appends to one partition may interleave
    freely; the log orders them and shares fsyncs between them.
    """

    def __init__(
        self,
        data_dir: Path,
        config: LogConfig | None = None,
        clock: Clock | None = None,
        *,
        tiering: Tiering | None = None,
        archive_reader: ArchiveReader | None = None,
        tail_cache_bytes: int = DEFAULT_TAIL_CACHE_BYTES,
    ) -> None:
        """`clock` times segment rolling; the one the control plane uses. With `tiering`
        (and its `archive_reader`), sealed segments go to the archive and reads below the
        local start come back from it (storage_nodes/archive). The partitions' latest
        appends are kept for their readers in at most `tail_cache_bytes` (0: none)."""
        self.streams_dir = data_dir / "streams"
        self._config = config or LogConfig()
        self._clock = clock or SystemClock()
        self._tiering = tiering
        self._archive_reader = archive_reader
        self._write_failure: str | None = None  # the last append's disk error, until one works
        self._tail_cache = TailCache(tail_cache_bytes) if tail_cache_bytes > 0 else None
        self._logs: dict[tuple[str, int], PartitionLog] = {}
        self._opening: dict[tuple[str, int], asyncio.Lock] = {}
        # Dropped in this process: without it, a read racing the drop would open (and
        # create) the partition again while its directory is being removed.
        self._dropped: set[str] = set()

    async def start(self, *, open_on_disk: bool = True) -> None:
        """Starts tiering (with an archive), which first opens the partitions on disk in
        the background, so that idle ones are sealed and tiered too without delaying the
        node's start. A node of a cluster passes `open_on_disk=False`: it tiers only the
        partitions it holds the lease of, opened when it takes them (`adopt`)."""
        kernel_sync.linux_aio()  # imported now, not by the first log to open
        if self._tiering is not None:
            self._tiering.start(
                lambda: self._logs, prepare=self._open_all if open_on_disk else None
            )

    async def _open_all(self) -> None:
        if not self.streams_dir.is_dir():
            return
        for stream_dir in sorted(self.streams_dir.iterdir()):
            if not stream_dir.is_dir() or stream_dir.name in self._dropped:
                continue
            for partition_dir in sorted(stream_dir.iterdir()):
                if partition_dir.is_dir() and partition_dir.name.isdigit():
                    await self._log(stream_dir.name, int(partition_dir.name))

    async def create_stream(self, descriptor: StreamDescriptor) -> None:
        check_stream_id(descriptor.stream_id)
        path = self.streams_dir / descriptor.stream_id / STREAM_DESCRIPTOR
        if path.exists():
            return
        data = orjson.dumps({"format": 1, **dataclasses.asdict(descriptor)})
        await asyncio.to_thread(_write_file, path, data)

    async def append(
        self,
        stream_id: str,
        partition: int,
        records: Sequence[RecordIn],
        *,
        replication: Replication = "none",
        wait: bool = True,
    ) -> int:
        """Appends durably (per the log's policy); returns the first record's offset.
        `replication` is not this object's to act on: a node of a cluster copies the
        records after this returns (storage_nodes/copies); `tidemq up` has no other node
        to copy to and no failover, so its tail is kept as `none` keeps it."""
        partition_log = await self._log(stream_id, partition)
        tiering = self._tiering
        if tiering is not None:
            if tiering.over_budget:
                raise DiskBudgetExceeded(
                    f"the node's disk budget ({tiering.config.disk_budget_bytes} bytes) is "
                    f"full until tiering to {tiering.url} frees space"
                    + (f" (it is failing: {tiering.last_error})" if tiering.last_error else "")
                )
            tiering.local_bytes += sum(len(r.body) for r in records) + 64 * len(records)
        try:
            offset = await partition_log.append(records)
        except (LogStorageError, LogClosedError) as exc:
            raise await self._failed(stream_id, partition, partition_log, exc) from exc
        self._write_failure = None
        return offset

    async def _failed(
        self,
        stream_id: str,
        partition: int,
        partition_log: PartitionLog,
        exc: LogStorageError | LogClosedError,
    ) -> NodeError:
        """A log whose write failed refuses every later one (partition_log.py): it is
        closed here, and the next request opens it again, recovering its tail, so that
        appends work again as soon as the disk does."""
        if self._logs.get((stream_id, partition)) is partition_log:
            del self._logs[(stream_id, partition)]
            with contextlib.suppress(Exception):
                await partition_log.close()
        if stream_id in self._dropped:  # closed by the stream's deletion, not by the disk
            return StreamDropped(f"stream {stream_id} was dropped")
        if isinstance(exc, LogStorageError):
            self._write_failure = str(exc.__cause__ or exc)
        return StorageUnavailable(
            f"the storage node cannot write to its disk ({exc.__cause__ or exc}); try again later"
        )

    def problem(self) -> str | None:
        tiering = self._tiering
        if tiering is not None and tiering.over_budget:
            return (
                f"the node's disk budget ({tiering.config.disk_budget_bytes} bytes) is full "
                f"until tiering to {tiering.url} frees space"
            )
        if self._write_failure is None:
            return None
        free_bytes = shutil.disk_usage(self.streams_dir.parent).free
        if free_bytes >= _FREE_BYTES_TO_RECOVER:
            self._write_failure = None
            return None
        return f"the last write failed ({self._write_failure}); {free_bytes} bytes free"

    async def read_offsets(
        self, stream_id: str, partition: int, offsets: Sequence[int], *, wait: bool = True
    ) -> dict[int, Record]:
        partition_log = await self._log(stream_id, partition)
        try:
            found = await partition_log.read_offsets(offsets)
        except (LogStorageError, LogClosedError) as exc:
            raise StorageUnavailable(f"the storage node cannot read its disk: {exc}") from exc
        if self._archive_reader is None or len(found) == len(set(offsets)):
            return found
        # Below the local start now (dropped once archived, maybe during the read above):
        # the archive has them, since tiering drops only what its manifest lists.
        start = partition_log.start_offset
        archived = [o for o in offsets if o < start and o not in found]
        if not archived:
            return found
        try:
            found |= await asyncio.to_thread(
                self._archive_reader.read_offsets, stream_id, partition, archived
            )
        except ObjectStoreError as exc:
            raise ArchiveUnavailable(
                f"records below offset {start} are archived and the archive cannot be "
                f"read now: {exc}"
            ) from exc
        return found

    async def absent(self, stream_id: str, partition: int, offsets: Sequence[int]) -> Absence:
        """Offsets below the local start that the archive awaits (a pending tail) or holds
        (filled since the read) are unavailable; those between its segments were never
        written. Offsets below the archive's start are gone (retention)."""
        partition_log = await self._log(stream_id, partition)
        below = [o for o in offsets if o < partition_log.start_offset]
        if self._archive_reader is None or not below:
            return Absence()
        try:
            manifest = await asyncio.to_thread(self._archive_reader.refresh, stream_id, partition)
        except ObjectStoreError as exc:
            raise ArchiveUnavailable(f"the archive cannot be read now: {exc}") from exc
        unavailable = {
            o for o in below if manifest.pending_tail(o) or manifest.segment_for(o) is not None
        }
        never_written = {o for o in below if o >= manifest.start_offset} - unavailable
        return Absence(frozenset(unavailable), frozenset(never_written))

    async def offset_for_time(self, stream_id: str, partition: int, timestamp_ms: int) -> int:
        """The first offset whose record's timestamp is at or after `timestamp_ms`: from
        the archive below the local start, else from the local log; the end offset if no
        record is that recent."""
        partition_log = await self._log(stream_id, partition)
        for _ in range(_TIME_LOOKUP_TRIES):
            start = partition_log.start_offset
            if self._archive_reader is not None and start > 0:
                try:
                    archived = await asyncio.to_thread(
                        self._archive_reader.offset_for_time,
                        stream_id,
                        partition,
                        timestamp_ms,
                        start,
                    )
                except ObjectStoreError as exc:
                    raise ArchiveUnavailable(
                        f"records below offset {start} are archived and the archive cannot "
                        f"be read now: {exc}"
                    ) from exc
                if archived is not None:
                    return archived
            try:
                found = await partition_log.offset_for_timestamp(timestamp_ms)
            except (LogStorageError, LogClosedError) as exc:
                raise StorageUnavailable(f"the storage node cannot read its disk: {exc}") from exc
            # Segments dropped (tiered) during the lookup were skipped by it: look again,
            # the archive now covering them.
            if partition_log.start_offset == start:
                return found
        return found

    async def tiering_status(self, stream_id: str, partition: int) -> TieringStatus | None:
        if self._tiering is None:
            return None
        partition_log = await self._log(stream_id, partition)
        try:
            return await self._tiering.status(stream_id, partition, partition_log)
        except ObjectStoreError as exc:
            raise ArchiveUnavailable(f"the archive cannot be read now: {exc}") from exc

    async def end_offset(self, stream_id: str, partition: int, *, wait: bool = True) -> int:
        """The next offset the partition will assign: every offset below it is durable."""
        return (await self._log(stream_id, partition)).end_offset

    def partitions_down(self, stream_id: str, partitions: int) -> frozenset[int]:
        """None: the partitions are in this process, served while it runs (`wait` is
        moot here for the same reason)."""
        return frozenset()

    async def drop_stream(self, stream_id: str) -> None:
        """Closes and deletes every partition of a stream (after its queue was deleted);
        later uses of it raise StreamDropped."""
        check_stream_id(stream_id)
        self._dropped.add(stream_id)
        # A partition being opened now (a use begun before the drop) is waited for, under
        # its opening lock, so that its log is closed with the others rather than kept
        # open over the directory deleted below. Opens begun from here on see `_dropped`.
        for opening in [lock for key, lock in self._opening.items() if key[0] == stream_id]:
            async with opening:
                pass
        for key in [key for key in self._logs if key[0] == stream_id]:
            await self._logs.pop(key).close()
        if self._tiering is not None:
            await self._tiering.stream_dropped(stream_id)
        if self._archive_reader is not None:
            self._archive_reader.forget(stream_id)
        await asyncio.to_thread(shutil.rmtree, self.streams_dir / stream_id, ignore_errors=True)

    # -- ownership, for a node of a cluster (docs/cluster.md) ------------------------------

    @property
    def tiering(self) -> Tiering | None:
        return self._tiering

    @property
    def archive_reader(self) -> ArchiveReader | None:
        return self._archive_reader

    async def open_log(self, stream_id: str, partition: int) -> PartitionLog:
        """The partition's log, opened (and recovered) if it is not open yet."""
        return await self._log(stream_id, partition)

    def is_open(self, stream_id: str, partition: int) -> bool:
        return (stream_id, partition) in self._logs

    async def restart_log(self, stream_id: str, partition: int, start_offset: int) -> None:
        """Replaces the partition's log with an empty one starting at `start_offset`
        (a new tenure: everything below is in the archive or awaited there)."""
        partition_log = self._logs.pop((stream_id, partition), None)
        if partition_log is not None:
            await partition_log.close()
        directory = self.streams_dir / stream_id / str(partition)
        await asyncio.to_thread(
            start_log_at, directory, start_offset, self._config.index_interval_bytes
        )
        await self._log(stream_id, partition)

    async def hand_over(self, stream_id: str, partition: int, *, archive: bool) -> None:
        """This node gives the partition up and closes its log, so that tiering leaves
        it alone. With `archive` (a graceful hand-over), its active segment is sealed and
        everything not yet archived uploaded first, so that the next owner finds it all
        in the archive; ArchiveUnavailable if the archive cannot take it (the local copy
        stays, and the log is closed all the same). Without (the lease was lost), the
        local copy is left as it is."""
        partition_log = self._logs.pop((stream_id, partition), None)
        if partition_log is None:
            return
        try:
            if archive and self._tiering is not None:
                await self._tiering.archive_now(stream_id, partition, partition_log)
        except ObjectStoreError as exc:
            raise ArchiveUnavailable(f"the archive cannot take the partition: {exc}") from exc
        finally:
            await partition_log.close()

    async def archive_partition(self, stream_id: str, partition: int) -> None:
        """Seals the open log's active segment and uploads every segment the archive
        lacks, the log staying open (a replication follower switch: the archive then
        holds every append acknowledged so far). StorageUnavailable if the log is not
        open here; ArchiveUnavailable if the archive cannot take it."""
        partition_log = self._logs.get((stream_id, partition))
        if partition_log is None or self._tiering is None:
            raise StorageUnavailable(f"{stream_id}/{partition} is not open on this node")
        try:
            await self._tiering.archive_now(stream_id, partition, partition_log)
        except ObjectStoreError as exc:
            raise ArchiveUnavailable(f"the archive cannot take the partition: {exc}") from exc

    def open_partitions(self) -> list[tuple[str, int]]:
        return sorted(self._logs)

    async def close(self) -> None:
        if self._tiering is not None:
            await self._tiering.stop()
        logs, self._logs = self._logs, {}
        for partition_log in logs.values():
            await partition_log.close()

    async def _log(self, stream_id: str, partition: int) -> PartitionLog:
        key = (stream_id, partition)
        found = self._logs.get(key)
        if found is not None:
            return found
        check_stream_id(stream_id)
        # Two first requests for one partition must not open (and recover) it twice.
        lock = self._opening.setdefault(key, asyncio.Lock())
        async with lock:
            found = self._logs.get(key)
            if stream_id in self._dropped:
                raise StreamDropped(f"stream {stream_id} was dropped")
            if found is None:
                directory = self.streams_dir / stream_id / str(partition)
                try:
                    tail = None if self._tail_cache is None else self._tail_cache.partition()
                    found = await PartitionLog.open(
                        directory, self._config, self._clock.now_ms, tail
                    )
                except LogStorageError as exc:
                    self._write_failure = str(exc.__cause__ or exc)
                    raise StorageUnavailable(
                        f"the storage node cannot open {directory}: {exc.__cause__ or exc}; "
                        "try again later"
                    ) from exc
                self._logs[key] = found
                log.debug("opened partition log %s", directory)
        self._opening.pop(key, None)
        return found


def check_stream_id(stream_id: str) -> None:
    # Stream ids come from the control plane; checking keeps a bad one out of the path.
    if not _STREAM_ID.match(stream_id):
        raise ValueError(f"invalid stream id {stream_id!r}")


def _write_file(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
