"""The PartitionLog API: offsets, reads, rolls, retention, close."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from storage_nodes.log.errors import InvalidRecordError, LogClosedError
from storage_nodes.log.file_names import log_path
from storage_nodes.log.partition_log import LogConfig, PartitionLog
from storage_nodes.log.record import RecordIn

from .conftest import BASE_TS, FakeClock, as_stored, make_record

SMALL = LogConfig(segment_max_bytes=4000, index_interval_bytes=512)


async def appended(log: PartitionLog, records: list[RecordIn], per_batch: int = 1) -> None:
    for start in range(0, len(records), per_batch):
        await log.append(records[start : start + per_batch])


async def test_appends_get_dense_offsets_and_read_back(tmp_path: Path) -> None:
    log = await PartitionLog.open(tmp_path)
    assert (log.start_offset, log.end_offset) == (0, 0)
    first = [make_record(n, rich=True) for n in range(3)]
    assert await log.append(first) == 0
    assert await log.append([make_record(3)]) == 3
    assert log.end_offset == 4
    records = await log.read(0)
    assert records == [as_stored(r, i) for i, r in enumerate([*first, make_record(3)])]
    assert await log.read(2, max_records=1) == [as_stored(first[2], 2)]
    assert await log.read(4) == []
    await log.close()


async def test_concurrent_appends_are_ordered_and_share_fsyncs(tmp_path: Path) -> None:
    log = await PartitionLog.open(tmp_path)
    records = [make_record(n) for n in range(200)]
    bases = await asyncio.gather(*(log.append([r]) for r in records))
    assert sorted(bases) == list(range(200))
    stored = {r.offset: r for r in await log.read(0, max_records=1000)}
    assert all(
        stored[base].message_id == r.message_id for base, r in zip(bases, records, strict=True)
    )
    assert log.stats.appends == 200
    assert log.stats.syncs < 200  # group commit: one fsync served many appends
    await log.close()


async def test_read_limits_and_the_oversized_first_record(tmp_path: Path) -> None:
    log = await PartitionLog.open(tmp_path, SMALL)
    records = [make_record(n, size=300) for n in range(40)]
    await appended(log, records, per_batch=4)
    assert len(await log.read(0, max_records=7)) == 7
    assert [r.offset for r in await log.read(5, max_bytes=900)] == [5, 6, 7]
    assert [r.offset for r in await log.read(5, max_bytes=10)] == [5]  # never empty
    everything = await log.read(0, max_records=1000, max_bytes=1 << 30)
    assert everything == [as_stored(r, i) for i, r in enumerate(records)]
    assert len(log.sealed_segments()) >= 2  # the reads above crossed segments
    with pytest.raises(ValueError, match="max_records"):
        await log.read(0, max_records=0)
    await log.close()


async def test_read_offsets_returns_what_exists(tmp_path: Path) -> None:
    log = await PartitionLog.open(tmp_path, SMALL)
    records = [make_record(n, size=200) for n in range(60)]
    await appended(log, records, per_batch=3)
    deleted = await log.delete_segments_below(20)
    assert deleted >= 1
    start = log.start_offset
    wanted = [59, 3, start, 31, 31, 1000, -1, 45, 46, 47]
    found = await log.read_offsets(wanted)
    expected = {o for o in wanted if start <= o < 60}
    assert set(found) == expected
    assert all(found[o] == as_stored(records[o], o) for o in expected)
    await log.close()


async def test_offset_for_timestamp_with_clocks_that_step_back(tmp_path: Path) -> None:
    log = await PartitionLog.open(tmp_path, SMALL)
    stamps = [10, 20, 15, 30, 25, 25, 40, 35, 50] * 5
    records = [
        make_record(n, ts=BASE_TS + t + (n // 9) * 100, size=150) for n, t in enumerate(stamps)
    ]
    await appended(log, records, per_batch=2)
    for target in range(BASE_TS, BASE_TS + 560, 3):
        expected = next(
            (i for i, r in enumerate(records) if r.timestamp_ms >= target), len(records)
        )
        assert await log.offset_for_timestamp(target) == expected, target
    await log.close()


async def test_segments_roll_by_size(tmp_path: Path) -> None:
    log = await PartitionLog.open(tmp_path, SMALL)
    await appended(log, [make_record(n, size=500) for n in range(30)])
    sealed = log.sealed_segments()
    assert len(sealed) >= 3
    assert all(info.size_bytes <= SMALL.segment_max_bytes for info in sealed)
    assert [s.base_offset for s in sealed[1:]] == [s.end_offset for s in sealed[:-1]]
    await log.close()


async def test_a_batch_larger_than_a_segment_gets_one_of_its_own(tmp_path: Path) -> None:
    log = await PartitionLog.open(tmp_path, SMALL)
    await log.append([make_record(0)])
    big = [make_record(n, size=1000) for n in range(1, 10)]
    assert await log.append(big) == 1
    await log.append([make_record(10)])
    assert [(s.base_offset, s.end_offset) for s in log.sealed_segments()] == [(0, 1), (1, 10)]
    assert await log.read(0, max_records=100, max_bytes=1 << 20) == [
        as_stored(r, i) for i, r in enumerate([make_record(0), *big, make_record(10)])
    ]
    await log.close()


async def test_segments_roll_by_age_on_the_injected_clock(tmp_path: Path) -> None:
    clock = FakeClock()
    config = LogConfig(segment_max_age_ms=60_000)
    log = await PartitionLog.open(tmp_path, config, now_ms=clock)
    await log.append([make_record(0)])
    clock.advance(59_999)
    await log.append([make_record(1)])
    assert log.sealed_segments() == []
    clock.advance(1)
    started = clock.now
    await log.append([make_record(2, ts=started)])
    assert [(s.base_offset, s.end_offset) for s in log.sealed_segments()] == [(0, 2)]
    await log.close()
    # After a restart the age counts from the first batch's timestamp.
    clock.advance(30_000)
    log = await PartitionLog.open(tmp_path, config, now_ms=clock)
    await log.append([make_record(3, ts=clock.now)])
    assert len(log.sealed_segments()) == 1
    clock.now = started + 60_000
    await log.append([make_record(4, ts=clock.now)])
    assert [(s.base_offset, s.end_offset) for s in log.sealed_segments()] == [(0, 2), (2, 4)]
    await log.close()


async def test_explicit_roll_and_an_empty_active_segment(tmp_path: Path) -> None:
    log = await PartitionLog.open(tmp_path)
    await log.roll()  # nothing to seal
    assert log.sealed_segments() == []
    await log.append([make_record(0)])
    await log.roll()
    await log.roll()
    assert [(s.base_offset, s.end_offset) for s in log.sealed_segments()] == [(0, 1)]
    assert log_path(tmp_path, 1).exists()
    await log.close()


async def test_retention_deletes_whole_sealed_segments_from_the_oldest(tmp_path: Path) -> None:
    clock = FakeClock()
    log = await PartitionLog.open(tmp_path, SMALL, now_ms=clock)
    records = [make_record(n, ts=BASE_TS + n * 1000, size=500) for n in range(30)]
    await appended(log, records)
    sealed = log.sealed_segments()
    assert await log.delete_segments_below(sealed[0].end_offset - 1) == 0
    assert await log.delete_segments_below(sealed[1].end_offset) == 2
    assert log.start_offset == sealed[1].end_offset
    assert not sealed[0].log_path.exists()
    assert not sealed[0].offset_index_path.exists()
    assert await log.read(0, max_records=1) == [
        as_stored(records[log.start_offset], log.start_offset)
    ]
    cutoff = sealed[2].max_timestamp_ms
    assert cutoff is not None
    assert await log.delete_segments_older_than(cutoff) == 0  # not strictly older
    assert await log.delete_segments_older_than(cutoff + 1) == 1
    # Everything: every sealed segment goes, the active one stays.
    await log.delete_segments_below(10**9)
    assert log.sealed_segments() == []
    assert log.start_offset <= 29 < log.end_offset == 30
    await log.close()
    log = await PartitionLog.open(tmp_path, SMALL, now_ms=clock)
    assert (log.end_offset, (await log.read(29))[0].message_id) == (30, records[29].message_id)
    await log.close()


async def test_close_is_idempotent_and_final(tmp_path: Path) -> None:
    log = await PartitionLog.open(tmp_path)
    pending = asyncio.ensure_future(log.append([make_record(0)]))
    await asyncio.sleep(0)  # let it queue
    await log.close()
    assert await pending == 0  # queued before close: written
    await log.close()
    with pytest.raises(LogClosedError):
        await log.append([make_record(1)])
    with pytest.raises(LogClosedError):
        await log.read(0)
    log = await PartitionLog.open(tmp_path)
    assert log.end_offset == 1
    await log.close()


async def test_empty_and_bad_appends_are_refused(tmp_path: Path) -> None:
    log = await PartitionLog.open(tmp_path)
    with pytest.raises(InvalidRecordError):
        await log.append([])
    with pytest.raises(InvalidRecordError):
        await log.append([RecordIn("m", 0, b"", delay_ms=-5)])
    assert log.end_offset == 0
    await log.close()
