"""The tail cache: reads of what was just appended come from the appended batches' bytes,
equal to what the segments hold; the cache stays within its bound, gives its buffers
back whole, and never answers for an offset the log would not."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from storage_nodes.log.partition_log import LogConfig, PartitionLog
from storage_nodes.log.record import RecordIn
from storage_nodes.log.tail_cache import TailCache

from .conftest import as_stored, make_record


def counted(name: str) -> float:
    return REGISTRY.get_sample_value(name) or 0.0


async def open_log(path: Path, cache: TailCache, config: LogConfig | None = None) -> PartitionLog:
    return await PartitionLog.open(path, config or LogConfig(), tail=cache.partition())


async def test_a_read_right_after_an_append_is_served_from_the_cache(tmp_path: Path) -> None:
    cache = TailCache(1 << 20)
    log = await open_log(tmp_path / "cached", cache)
    records = [make_record(n, rich=n % 4 == 0) for n in range(50)]
    await log.append(records[:20])
    await log.append(records[20:])
    hits = counted("tidemq_log_tail_cache_hits_total")
    found = await log.read_offsets([3, 25, 49, 7, 3])
    assert counted("tidemq_log_tail_cache_hits_total") - hits == 4
    assert found == {o: as_stored(records[o], o) for o in (3, 7, 25, 49)}
    # The same records as the segments give a log without a cache.
    await log.close()
    uncached = await PartitionLog.open(tmp_path / "cached")
    assert await uncached.read_offsets([3, 25, 49, 7]) == found
    await uncached.close()


async def test_the_body_md5_is_carried_from_the_append_not_from_the_disk(tmp_path: Path) -> None:
    cache = TailCache(1 << 20)
    log = await open_log(tmp_path, cache)
    await log.append([RecordIn("m", 1, b"body", body_md5="841a2d689ad86bd1611447453c22c6fc")])
    assert (await log.read_offsets([0]))[0].body_md5 == "841a2d689ad86bd1611447453c22c6fc"
    await log.close()
    reopened = await open_log(tmp_path, cache)
    assert (await reopened.read_offsets([0]))[0].body_md5 is None  # never on disk
    await reopened.close()


async def test_body_md5s_come_with_every_record_of_a_batch_read_in_any_order(
    tmp_path: Path,
) -> None:
    cache = TailCache(1 << 20)
    log = await open_log(tmp_path, cache)
    bodies = [f"body {n}".encode() for n in range(30)]
    digests = [hashlib.md5(body).hexdigest() for body in bodies]
    await log.append([RecordIn(f"m{n}", n, body, body_md5=digests[n])
                      for n, body in enumerate(bodies)])  # fmt: skip
    await log.append([RecordIn("no-md5", 30, b"x")])  # one without: carried as None
    found = await log.read_offsets([29, 4, 5, 6, 17, 30])
    expected = {offset: digests[offset] for offset in (29, 4, 5, 6, 17)} | {30: None}
    assert {offset: r.body_md5 for offset, r in found.items()} == expected
    assert [found[n].body for n in (4, 17, 29, 30)] == [bodies[4], bodies[17], bodies[29], b"x"]
    await log.close()


async def test_a_closing_log_takes_only_the_buffers_no_other_log_holds(tmp_path: Path) -> None:
    cache = TailCache(1 << 20)
    closing = await open_log(tmp_path / "a", cache)
    staying = await open_log(tmp_path / "b", cache)
    await closing.append([make_record(0)])
    await staying.append([make_record(1)])  # the same buffer as the closing log's batch
    held_bytes = cache.size_bytes
    await closing.close()
    assert cache.size_bytes == held_bytes
    hits = counted("tidemq_log_tail_cache_hits_total")
    assert await staying.read_offsets([0]) == {0: as_stored(make_record(1), 0)}
    assert counted("tidemq_log_tail_cache_hits_total") - hits == 1
    await staying.close()
    assert cache.size_bytes == 0


async def test_a_buffer_open_half_the_age_bound_takes_no_more_batches(tmp_path: Path) -> None:
    now_s = [100.0]
    cache = TailCache(1 << 20, max_age_s=10.0, clock=lambda: now_s[0])
    log = await open_log(tmp_path, cache)
    await log.append([make_record(0)])
    now_s[0] += 4.9
    await log.append([make_record(1)])  # the first buffer still
    assert cache.size_bytes == cache.chunk_bytes
    now_s[0] += 0.2  # the first buffer is 5.1 s old: this batch opens a new one
    await log.append([make_record(2)])
    assert cache.size_bytes == 2 * cache.chunk_bytes
    now_s[0] += 4.9  # 10 s after the first buffer opened: it goes, with both its batches
    cache.expire()
    assert cache.size_bytes == cache.chunk_bytes
    misses = counted("tidemq_log_tail_cache_misses_total")
    assert len(await log.read_offsets([0, 1, 2])) == 3
    assert counted("tidemq_log_tail_cache_misses_total") - misses == 2
    await log.close()


async def test_the_cache_keeps_to_its_bound_by_dropping_the_oldest_appends(
    tmp_path: Path,
) -> None:
    cache = TailCache(20_000)  # a few dozen 100-byte records with their overhead
    logs = [await open_log(tmp_path / str(p), cache) for p in range(2)]
    records = [make_record(n) for n in range(400)]
    evicted = counted("tidemq_log_tail_cache_evicted_total")
    for start in range(0, 400, 10):
        await logs[(start // 10) % 2].append(records[start : start + 10])
        assert cache.size_bytes <= cache.max_bytes
    assert counted("tidemq_log_tail_cache_evicted_total") > evicted
    misses = counted("tidemq_log_tail_cache_misses_total")
    # The oldest appends come from the segments now, the newest from the cache; all equal.
    found = await logs[0].read_offsets([0, 1, 199])
    assert counted("tidemq_log_tail_cache_misses_total") - misses == 2
    assert found == {0: as_stored(records[0], 0), 1: as_stored(records[1], 1),
                     199: as_stored(records[399 - 10], 199)}  # fmt: skip
    for log in logs:
        await log.close()
    assert cache.size_bytes == 0  # each log's share released on close


async def test_an_append_larger_than_the_bound_is_not_cached(tmp_path: Path) -> None:
    cache = TailCache(1000)
    log = await open_log(tmp_path, cache)
    await log.append([make_record(0, size=5000)])
    assert cache.size_bytes == 0
    assert await log.read_offsets([0]) == {0: as_stored(make_record(0, size=5000), 0)}
    await log.close()


async def test_records_removed_by_retention_are_not_answered_from_the_cache(
    tmp_path: Path,
) -> None:
    cache = TailCache(1 << 20)
    log = await open_log(tmp_path, cache)
    await log.append([make_record(n) for n in range(10)])
    await log.roll()
    await log.append([make_record(n) for n in range(10, 12)])
    assert await log.delete_segments_below(10) == 1
    assert await log.read_offsets([0, 9, 10]) == {10: as_stored(make_record(10), 10)}
    await log.close()


async def test_without_a_cache_nothing_is_kept(tmp_path: Path) -> None:
    hits = counted("tidemq_log_tail_cache_hits_total")
    log = await PartitionLog.open(tmp_path)
    await log.append([make_record(0)])
    assert await log.read_offsets([0]) == {0: as_stored(make_record(0), 0)}
    assert counted("tidemq_log_tail_cache_hits_total") == hits
    await log.close()


async def test_appends_leave_the_cache_once_held_its_max_age(tmp_path: Path) -> None:
    cache = TailCache(1 << 20, max_age_s=0.2)
    log = await open_log(tmp_path, cache)
    await log.append([make_record(n) for n in range(5)])
    await asyncio.sleep(0.12)
    await log.append([make_record(n) for n in range(5, 10)])
    hits = counted("tidemq_log_tail_cache_hits_total")
    assert len(await log.read_offsets(range(10))) == 10
    assert counted("tidemq_log_tail_cache_hits_total") - hits == 10
    await asyncio.sleep(0.12)  # the first append is 0.24 s old, the second 0.12 s
    misses = counted("tidemq_log_tail_cache_misses_total")
    found = await log.read_offsets(range(10))
    assert counted("tidemq_log_tail_cache_misses_total") - misses == 5
    assert found == {n: as_stored(make_record(n), n) for n in range(10)}
    await asyncio.sleep(0.15)  # with no append since, the timer let the second one go too
    assert cache.size_bytes == 0
    misses = counted("tidemq_log_tail_cache_misses_total")
    assert len(await log.read_offsets(range(10))) == 10
    assert counted("tidemq_log_tail_cache_misses_total") - misses == 10
    await log.close()


def test_the_age_bound_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_age_s"):
        TailCache(1 << 20, max_age_s=0)
