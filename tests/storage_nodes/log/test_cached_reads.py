"""Reads the page cache can serve are done on the event loop; the rest go to a worker."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest

from storage_nodes.log.fileio import NotCached, pread_cached
from storage_nodes.log.partition_log import LogConfig, PartitionLog

from .conftest import as_stored, make_record

T = TypeVar("T")


async def first_step_and_result(coroutine: Coroutine[Any, Any, T]) -> tuple[bool, T]:
    """Whether ``coroutine`` finished within its first step (it never waited for a worker
    thread: a worker's answer reaches the loop in a later pass), and its result."""
    task = asyncio.ensure_future(coroutine)
    await asyncio.sleep(0)  # the task's first step runs before this returns
    finished_at_once = task.done()
    return finished_at_once, await task


def drop_from_page_cache(path: Path) -> None:
    """Evict the file's (clean, synced) pages, so the next read must go to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def test_pread_cached_reads_only_what_the_page_cache_holds(tmp_path: Path) -> None:
    path = tmp_path / "f"
    data = os.urandom(256 * 1024)
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert pread_cached(fd, 1000, 5) == data[5:1005]
        with pytest.raises(NotCached):
            pread_cached(fd, 1000, len(data) - 10)  # short: past the end of the file
        # Pages the kernel is still reading ahead or writing back stay when dropped (a loaded
        # machine takes its time), so the drop is tried again until they are gone.
        for _ in range(50):
            drop_from_page_cache(path)
            try:
                pread_cached(fd, 1000, 128 * 1024)
            except NotCached:
                break
            time.sleep(0.02)
        else:
            pytest.fail("a read of pages dropped from the page cache was served from it")
    finally:
        os.close(fd)


async def test_a_small_read_of_cached_records_is_served_on_the_loop(tmp_path: Path) -> None:
    log = await PartitionLog.open(tmp_path)
    records = [make_record(n, rich=n % 5 == 0) for n in range(300)]
    for start in range(0, 300, 100):
        await log.append(records[start : start + 100])
    wanted = [7, 150, 299, 0, 150]
    on_loop, found = await first_step_and_result(log.read_offsets(wanted))
    assert on_loop
    assert found == {o: as_stored(records[o], o) for o in wanted}
    await log.close()


async def test_records_no_longer_cached_are_read_in_a_worker(tmp_path: Path) -> None:
    log = await PartitionLog.open(tmp_path)
    records = [make_record(n, size=2000) for n in range(200)]
    await log.append(records)
    drop_from_page_cache(log._segments.active.log_path)
    on_loop, found = await first_step_and_result(log.read_offsets([3, 190]))
    assert not on_loop
    assert found == {3: as_stored(records[3], 3), 190: as_stored(records[190], 190)}
    await log.close()


async def test_a_batch_too_large_to_decode_on_the_loop_is_read_in_a_worker(
    tmp_path: Path,
) -> None:
    log = await PartitionLog.open(tmp_path)
    records = [make_record(n, size=3000) for n in range(100)]  # one batch of ~300 KB
    await log.append(records)
    on_loop, found = await first_step_and_result(log.read_offsets([42]))
    assert not on_loop
    assert found == {42: as_stored(records[42], 42)}
    await log.close()


async def test_a_sealed_segment_is_read_in_a_worker_until_its_indexes_are_loaded(
    tmp_path: Path,
) -> None:
    config = LogConfig(segment_max_bytes=4096)
    log = await PartitionLog.open(tmp_path, config)
    records = [make_record(n, size=500) for n in range(20)]
    for record in records:
        await log.append([record])
    await log.close()
    log = await PartitionLog.open(tmp_path, config)  # sealed segments load indexes lazily
    assert len(log.sealed_segments()) >= 2
    first = await first_step_and_result(log.read_offsets([1]))
    again = await first_step_and_result(log.read_offsets([2]))
    assert first == (False, {1: as_stored(records[1], 1)})
    assert again == (True, {2: as_stored(records[2], 2)})
    await log.close()
