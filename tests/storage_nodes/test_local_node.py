from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from control_plane.clock import ManualClock
from storage_nodes.archive.local_store import LocalDirStore
from storage_nodes.archive.manifest import Manifests
from storage_nodes.archive.remote_reads import ArchiveReader
from storage_nodes.archive.segment_cache import SegmentCache
from storage_nodes.archive.tiering import Tiering, TieringConfig
from storage_nodes.local_node import LocalNode
from storage_nodes.log import kernel_sync
from storage_nodes.log.log_config import LogConfig
from storage_nodes.node import RecordIn, StreamDropped


def _record(body: bytes) -> RecordIn:
    return RecordIn(message_id="m-" + body.decode(), timestamp_ms=1_700_000_000_000, body=body)


async def test_appends_are_read_back_by_offset_and_survive_reopening(tmp_path: Path) -> None:
    node = LocalNode(tmp_path)
    assert await node.end_offset("s1", 0) == 0
    # Concurrent first uses of one partition open it once.
    bases = await asyncio.gather(*(node.append("s1", 0, [_record(b"%d" % i)]) for i in range(5)))
    assert sorted(bases) == [0, 1, 2, 3, 4]
    await node.close()

    reopened = LocalNode(tmp_path)
    assert await reopened.end_offset("s1", 0) == 5
    found = await reopened.read_offsets("s1", 0, [4, 1, 9])
    assert sorted(found) == [1, 4]
    assert found[4].offset == 4
    await reopened.close()


async def test_starting_imports_linux_aio_before_any_log_opens(tmp_path: Path) -> None:
    # Importing caio takes 40-120 ms: on the event loop, at the first log's open, it held
    # up every request beside it.
    kernel_sync.linux_aio.cache_clear()
    node = LocalNode(tmp_path)
    await node.start()
    assert kernel_sync.linux_aio.cache_info().currsize == 1
    await node.close()


async def test_a_dropped_stream_is_gone_from_disk(tmp_path: Path) -> None:
    node = LocalNode(tmp_path)
    await node.append("gone", 0, [_record(b"x")])
    await node.append("kept", 0, [_record(b"y")])
    await node.drop_stream("gone")
    assert not (tmp_path / "streams" / "gone").exists()
    with pytest.raises(StreamDropped):
        await node.end_offset("gone", 0)
    assert await node.end_offset("kept", 0) == 1
    await node.close()


async def test_uses_racing_a_drop_do_not_bring_the_stream_back(tmp_path: Path) -> None:
    node = LocalNode(tmp_path)
    await node.append("gone", 0, [_record(b"x")])
    racing = [node.end_offset("gone", p) for p in range(4)]
    racing += [node.read_offsets("gone", 0, [0]), node.append("gone", 1, [_record(b"y")])]
    results = await asyncio.gather(node.drop_stream("gone"), *racing, return_exceptions=True)
    assert results[0] is None
    assert all(isinstance(r, StreamDropped) for r in results[1:]), results
    await node.close()
    assert not (tmp_path / "streams" / "gone").exists()


async def test_a_partition_opening_when_its_stream_is_dropped_is_closed_with_it(
    tmp_path: Path,
) -> None:
    """A first use that was opening a partition when the drop came (a subscriber's claim
    as its queue is deleted) must not leave that log open over a deleted directory."""
    node = LocalNode(tmp_path)
    await node.append("gone", 0, [_record(b"x")])
    opening = asyncio.create_task(node.end_offset("gone", 1))
    for _ in range(3):  # into the partition's open, which waits for a thread
        await asyncio.sleep(0)
    await node.drop_stream("gone")
    await asyncio.gather(opening, return_exceptions=True)  # begun before: either answer
    with pytest.raises(StreamDropped):
        await node.end_offset("gone", 1)
    assert not (tmp_path / "streams" / "gone").exists()
    await node.close()  # closing every log left: none writes into the deleted directory


@pytest.mark.parametrize("stream_id", ["../escape", "", "a/b", "x" * 65])
async def test_stream_ids_cannot_leave_the_data_directory(tmp_path: Path, stream_id: str) -> None:
    node = LocalNode(tmp_path)
    with pytest.raises(ValueError, match="invalid stream id"):
        await node.append(stream_id, 0, [_record(b"x")])
    await node.close()


async def test_offset_for_time_is_the_first_record_at_or_after_the_time(tmp_path: Path) -> None:
    node = LocalNode(tmp_path, LogConfig(durability="none", index_interval_bytes=64))
    # A producer whose clock stepped back (3000, then 2000): the lookup stays exact.
    for i, stamp in enumerate([1000, 1000, 3000, 2000, 4000, 5000]):
        await node.append("s1", 0, [RecordIn(message_id=f"m{i}", timestamp_ms=stamp, body=b"x")])
    lookups = {0: 0, 1000: 0, 1001: 2, 2000: 2, 3000: 2, 3001: 4, 5000: 5, 5001: 6}
    for timestamp_ms, offset in lookups.items():
        assert await node.offset_for_time("s1", 0, timestamp_ms) == offset, timestamp_ms
    assert await node.offset_for_time("empty", 0, 0) == 0
    await node.close()


async def test_offset_for_time_reads_the_archive_below_the_local_start(tmp_path: Path) -> None:
    clock = ManualClock()
    store = LocalDirStore(tmp_path / "archive")
    manifests = Manifests(store)
    tiering = Tiering(
        manifests,
        TieringConfig(local_retention_bytes=0, local_retention_ms=0, check_interval_ms=20),
        clock,
        tmp_path / "node",
    )
    node = LocalNode(
        tmp_path / "node",
        LogConfig(durability="none", segment_max_bytes=300, index_interval_bytes=64),
        clock,
        tiering=tiering,
        archive_reader=ArchiveReader(manifests, SegmentCache(store, tmp_path / "cache")),
    )
    base_ms = clock.now_ms()
    for i in range(60):  # ten records a second; a segment every few records
        stamp = base_ms + i * 100
        await node.append("s1", 0, [RecordIn(message_id=f"m{i}", timestamp_ms=stamp, body=b"y")])
    await node.start()
    deadline = asyncio.get_running_loop().time() + 15
    while (status := await node.tiering_status("s1", 0)) is None or status.log_start_offset < 40:
        assert asyncio.get_running_loop().time() < deadline, status
        await asyncio.sleep(0.05)
    for i in (0, 1, 17, 39, 40, 41, 59):
        assert await node.offset_for_time("s1", 0, base_ms + i * 100) == i
        assert await node.offset_for_time("s1", 0, base_ms + i * 100 - 50) == i
    assert await node.offset_for_time("s1", 0, base_ms + 6000) == 60
    await node.close()
