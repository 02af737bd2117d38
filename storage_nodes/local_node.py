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
import logging
import re
import shutil
from collections.abc import Sequence
from pathlib import Path

from control_plane.clock import Clock, SystemClock
from storage_nodes.log.log_config import LogConfig
from storage_nodes.log.partition_log import PartitionLog
from storage_nodes.node import Record, RecordIn, StreamDropped

log = logging.getLogger(__name__)

_STREAM_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")


class LocalNode:
    """Not thread-safe: use from one event loop. Appends to one partition may interleave
    freely; the log orders them and shares fsyncs between them.
    """

    def __init__(
        self, data_dir: Path, config: LogConfig | None = None, clock: Clock | None = None
    ) -> None:
        """`clock` times segment rolling; the one the control plane uses."""
        self.streams_dir = data_dir / "streams"
        self._config = config or LogConfig()
        self._clock = clock or SystemClock()
        self._logs: dict[tuple[str, int], PartitionLog] = {}
        self._opening: dict[tuple[str, int], asyncio.Lock] = {}
        # Dropped in this process: without it, a read racing the drop would open (and
        # create) the partition again while its directory is being removed.
        self._dropped: set[str] = set()

    async def append(self, stream_id: str, partition: int, records: Sequence[RecordIn]) -> int:
        """Appends durably (per the log's policy); returns the first record's offset."""
        partition_log = await self._log(stream_id, partition)
        return await partition_log.append(records)

    async def read_offsets(
        self, stream_id: str, partition: int, offsets: Sequence[int]
    ) -> dict[int, Record]:
        partition_log = await self._log(stream_id, partition)
        return await partition_log.read_offsets(offsets)

    async def end_offset(self, stream_id: str, partition: int) -> int:
        """The next offset the partition will assign: every offset below it is durable."""
        return (await self._log(stream_id, partition)).end_offset

    async def drop_stream(self, stream_id: str) -> None:
        """Closes and deletes every partition of a stream (after its queue was deleted);
        later uses of it raise StreamDropped."""
        _check_stream_id(stream_id)
        self._dropped.add(stream_id)
        for key in [key for key in self._logs if key[0] == stream_id]:
            await self._logs.pop(key).close()
        await asyncio.to_thread(shutil.rmtree, self.streams_dir / stream_id, ignore_errors=True)

    async def close(self) -> None:
        logs, self._logs = self._logs, {}
        for partition_log in logs.values():
            await partition_log.close()

    async def _log(self, stream_id: str, partition: int) -> PartitionLog:
        key = (stream_id, partition)
        found = self._logs.get(key)
        if found is not None:
            return found
        _check_stream_id(stream_id)
        # Two first requests for one partition must not open (and recover) it twice.
        lock = self._opening.setdefault(key, asyncio.Lock())
        async with lock:
            found = self._logs.get(key)
            if stream_id in self._dropped:
                raise StreamDropped(f"stream {stream_id} was dropped")
            if found is None:
                directory = self.streams_dir / stream_id / str(partition)
                found = await PartitionLog.open(directory, self._config, self._clock.now_ms)
                self._logs[key] = found
                log.debug("opened partition log %s", directory)
        self._opening.pop(key, None)
        return found


def _check_stream_id(stream_id: str) -> None:
    # Stream ids come from the control plane; checking keeps a bad one out of the path.
    if not _STREAM_ID.match(stream_id):
        raise ValueError(f"invalid stream id {stream_id!r}")
