"""Syncs by the kernel's AIO from the event loop (storage_nodes/log/kernel_sync.py), and
the log's small rounds going that way instead of through its I/O thread."""

from __future__ import annotations

import asyncio
import errno
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from storage_nodes.log import kernel_sync
from storage_nodes.log.partition_log import LogConfig, PartitionLog

from .conftest import make_record


def _kernel_syncs() -> float:
    return REGISTRY.get_sample_value("tidemq_log_kernel_syncs_total") or 0.0


@pytest.fixture
async def syncer() -> AsyncIterator[kernel_sync.KernelSync]:
    got = kernel_sync.acquire(asyncio.get_running_loop())
    # The machines TideMQ is built and tested on are Linux 4.18 or later.
    assert got is not None, "Linux AIO is available here"
    yield got
    got.release()


async def test_a_sync_completes_on_the_loop(tmp_path: Path, syncer: kernel_sync.KernelSync) -> None:
    loop = asyncio.get_running_loop()
    fd = os.open(tmp_path / "f", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        os.pwrite(fd, b"x" * 4096, 0)
        done: asyncio.Future[OSError | None] = loop.create_future()
        syncer.fdatasync(fd, done.set_result)
        assert not done.done()  # the kernel's worker syncs it; the loop hears of it later
        assert await asyncio.wait_for(done, timeout=30) is None
        assert syncer.has_room
    finally:
        os.close(fd)


async def test_the_logs_of_a_loop_share_one_syncer_until_the_last_releases_it(
    syncer: kernel_sync.KernelSync,
) -> None:
    loop = asyncio.get_running_loop()
    again = kernel_sync.acquire(loop)
    assert again is syncer
    again.release()
    assert kernel_sync.acquire(loop) is syncer  # still held by the fixture: the same one
    syncer.release()  # the acquire just above


async def _sync_once(path: Path, syncer: kernel_sync.KernelSync) -> OSError | None:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        os.pwrite(fd, b"x" * 4096, 0)
        done: asyncio.Future[OSError | None] = asyncio.get_running_loop().create_future()
        syncer.fdatasync(fd, done.set_result)
        return await asyncio.wait_for(done, timeout=30)
    finally:
        os.close(fd)


def test_the_last_release_keeps_the_aio_context_for_the_next_loop(tmp_path: Path) -> None:
    # Ending a context (caio's io_destroy, with the GIL held) took 30-60 ms of the loop it
    # ran on: the last log's close hands the context on instead.
    contexts = []

    async def use_and_let_go() -> None:
        syncer = kernel_sync.acquire(asyncio.get_running_loop())
        assert syncer is not None
        contexts.append(syncer._context)
        assert await _sync_once(tmp_path / "f", syncer) is None
        syncer.release()

    for _ in range(2):
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(use_and_let_go())
        finally:
            loop.close()
    assert contexts[0] is contexts[1]  # the second loop synced on the first one's context


async def test_a_syncer_let_go_with_a_sync_out_closes_once_the_sync_completes(
    tmp_path: Path,
) -> None:
    loop = asyncio.get_running_loop()
    errors: list[dict[str, object]] = []
    loop.set_exception_handler(lambda _, context: errors.append(context))
    syncer = kernel_sync.acquire(loop)
    assert syncer is not None
    fd = os.open(tmp_path / "f", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        os.pwrite(fd, b"x" * 4096, 0)
        done: asyncio.Future[OSError | None] = loop.create_future()
        syncer.fdatasync(fd, done.set_result)
        syncer.release()  # the last user, with its sync still out
        assert await asyncio.wait_for(done, timeout=30) is None
        await asyncio.sleep(0)
    finally:
        os.close(fd)
        loop.set_exception_handler(None)
    assert errors == []
    again = kernel_sync.acquire(loop)
    assert again is not None
    assert again is not syncer
    again.release()


async def test_a_sync_the_kernel_refuses_raises_and_never_completes(
    tmp_path: Path, syncer: kernel_sync.KernelSync
) -> None:
    fd = os.open(tmp_path / "f", os.O_RDWR | os.O_CREAT, 0o644)
    os.close(fd)  # a descriptor that is no longer open
    completed: list[OSError | None] = []
    with pytest.raises(OSError, match="EBADF"):
        syncer.fdatasync(fd, completed.append)
    await asyncio.sleep(0.05)
    assert completed == []
    assert syncer.has_room


def test_the_kernels_negative_result_is_the_errno() -> None:
    assert kernel_sync._error_of(0) is None
    error = kernel_sync._error_of((1 << 64) - errno.EIO)
    assert isinstance(error, OSError)
    assert error.errno == errno.EIO


async def test_small_rounds_are_synced_by_the_kernel_and_large_ones_by_the_thread(
    tmp_path: Path, syncer: kernel_sync.KernelSync
) -> None:
    log = await PartitionLog.open(tmp_path, LogConfig(loop_sync_max_bytes=64 * 1024))
    before = _kernel_syncs()
    for n in range(5):
        assert await log.append([make_record(n)]) == n
    assert _kernel_syncs() - before == 5
    big = [make_record(n, size=1024) for n in range(5, 105)]  # ~100 KiB: one round
    before, syncs_before = _kernel_syncs(), log.stats.syncs
    assert await log.append(big) == 5
    assert _kernel_syncs() == before
    assert log.stats.syncs == syncs_before + 1
    await log.close()
    log = await PartitionLog.open(tmp_path)
    stored = await log.read(0, max_records=200)
    assert [r.offset for r in stored] == list(range(105))
    await log.close()


async def test_with_loop_syncs_off_every_round_goes_through_the_thread(tmp_path: Path) -> None:
    log = await PartitionLog.open(tmp_path, LogConfig(loop_sync_max_bytes=0))
    before = _kernel_syncs()
    await asyncio.gather(*(log.append([make_record(n)]) for n in range(20)))
    assert _kernel_syncs() == before
    assert log.stats.syncs >= 1
    await log.close()
