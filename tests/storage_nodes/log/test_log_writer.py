"""Durability policies, group commit, failure and cancellation."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from storage_nodes.log.errors import LogClosedError, LogStorageError
from storage_nodes.log.partition_log import Durability, LogConfig, PartitionLog
from storage_nodes.log.record_batch import encode_batch

from .conftest import as_stored, make_record


@pytest.mark.parametrize("durability", ["fsync", "interval", "none"])
async def test_every_policy_keeps_what_was_appended_across_close(
    tmp_path: Path, durability: Durability
) -> None:
    log = await PartitionLog.open(tmp_path, LogConfig(durability=durability))
    records = [make_record(n) for n in range(50)]
    await asyncio.gather(*(log.append([r]) for r in records[:25]))
    for record in records[25:]:
        await log.append([record])
    syncs_before_close = log.stats.syncs
    await log.close()
    if durability == "fsync":
        assert syncs_before_close >= 1
    elif durability == "none":
        assert syncs_before_close == 0
    log = await PartitionLog.open(tmp_path, LogConfig(durability=durability))
    stored = await log.read(0, max_records=100)
    assert sorted(r.message_id for r in stored) == [r.message_id for r in records]
    assert [r.offset for r in stored] == list(range(50))
    await log.close()


async def test_interval_policy_fsyncs_in_the_background(tmp_path: Path) -> None:
    log = await PartitionLog.open(tmp_path, LogConfig(durability="interval", flush_interval_ms=1))
    await log.append([make_record(0)])
    assert log.stats.syncs == 0

    async def synced() -> None:
        # The log has no event for a background flush: poll its counters (bounded below).
        while log.stats.syncs == 0:  # noqa: ASYNC110
            await asyncio.sleep(0.001)

    await asyncio.wait_for(synced(), timeout=10)
    await log.close()


async def test_concurrent_appends_share_writes_and_fsyncs(tmp_path: Path) -> None:
    log = await PartitionLog.open(tmp_path)
    await log.append([make_record(0)])
    before = log.stats
    bases = await asyncio.gather(*(log.append([make_record(n)]) for n in range(1, 65)))
    after = log.stats
    assert bases == list(range(1, 65))
    assert after.appends - before.appends == 64
    # The first finds the log idle and goes at once; the other 63 form the next round.
    assert after.writes - before.writes == 2
    assert after.syncs - before.syncs == 2
    await log.close()


async def test_an_append_to_an_idle_log_is_written_before_the_loop_turns(tmp_path: Path) -> None:
    log = await PartitionLog.open(tmp_path)
    await log.append([make_record(0)])
    path = log._segments.active.log_path
    size_before = path.stat().st_size
    await asyncio.sleep(0)  # the pass in which the last round's callers resume is over
    writer = log._writer
    future = writer.append(encode_batch([make_record(1)]))
    # Blocking on purpose: the loop gets no turn, so only an append handed to the I/O
    # thread from within append() can reach the file (bounded, in case it never does).
    deadline = time.monotonic() + 30
    while path.stat().st_size == size_before and time.monotonic() < deadline:
        time.sleep(0.001)  # noqa: ASYNC251 (the point: the loop must not turn)
    assert path.stat().st_size > size_before
    assert await future == 1
    await log.close()


async def test_appends_made_as_a_round_commits_stay_together(tmp_path: Path) -> None:
    log = await PartitionLog.open(tmp_path)
    writer = log._writer
    again: list[asyncio.Future[int]] = []

    def append_ten_more(_: object) -> None:
        # As a producer does that appends again the moment its append returns.
        again.extend(writer.append(encode_batch([make_record(n)])) for n in range(1, 11))

    first = writer.append(encode_batch([make_record(0)]))
    first.add_done_callback(append_ten_more)
    await first
    writes_before = log.stats.writes
    assert await asyncio.gather(*again) == list(range(1, 11))
    assert log.stats.writes - writes_before == 1  # one round, not one alone and nine after
    await log.close()


async def test_a_cancelled_caller_does_not_withdraw_its_records(tmp_path: Path) -> None:
    log = await PartitionLog.open(tmp_path)
    task = asyncio.ensure_future(log.append([make_record(0)]))
    await asyncio.sleep(0)  # queued
    task.cancel()
    assert await log.append([make_record(1)]) == 1
    assert [r.message_id for r in await log.read(0)] == ["msg-00000000", "msg-00000001"]
    await log.close()


# Rounds written from the loop and synced by the kernel (the default), and through the
# I/O thread.
@pytest.mark.parametrize("loop_sync_max_bytes", [LogConfig().loop_sync_max_bytes, 0])
async def test_a_disk_error_fails_the_log_until_it_is_reopened(
    tmp_path: Path, loop_sync_max_bytes: int
) -> None:
    log = await PartitionLog.open(tmp_path, LogConfig(loop_sync_max_bytes=loop_sync_max_bytes))
    await log.append([make_record(0)])
    # Pull the file out from under the writer: the next write gets EBADF from the OS.
    active = log._segments.active
    assert active._fd is not None
    os.close(active._fd)
    with pytest.raises(LogStorageError) as caught:
        await log.append([make_record(1)])
    assert isinstance(caught.value.__cause__, OSError)
    with pytest.raises(LogStorageError):
        await log.append([make_record(2)])
    active._fd = None  # already closed above
    await log.close()
    with pytest.raises(LogClosedError):
        await log.append([make_record(3)])
    log = await PartitionLog.open(tmp_path)
    assert await log.read(0) == [as_stored(make_record(0), 0)]
    await log.close()
