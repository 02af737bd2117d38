"""Recovery of the active segment on open: torn tails, garbage, bad indexes."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from storage_nodes.log.file_names import index_path, log_path, time_index_path
from storage_nodes.log.partition_log import LogConfig, PartitionLog
from storage_nodes.log.record import Record, RecordIn

from .conftest import as_stored, make_record

CONFIG = LogConfig(index_interval_bytes=512)


async def write_batches(directory: Path, count: int, per_batch: int = 3) -> list[RecordIn]:
    """``count`` batches of ``per_batch`` records, appended one by one, log closed."""
    log = await PartitionLog.open(directory, CONFIG)
    written: list[RecordIn] = []
    for b in range(count):
        batch = [make_record(b * per_batch + i, size=90 + i) for i in range(per_batch)]
        assert await log.append(batch) == len(written)
        written += batch
    await log.close()
    return written


async def reopen_and_read(directory: Path) -> tuple[PartitionLog, list[Record]]:
    log = await PartitionLog.open(directory, CONFIG)
    records = await log.read(0, max_records=100_000, max_bytes=1 << 30)
    assert [r.offset for r in records] == list(range(log.end_offset))
    return log, records


def batch_starts(directory: Path) -> list[int]:
    """Byte positions of every batch in the active segment (walking the length fields)."""
    data = log_path(directory, 0).read_bytes()
    starts, position = [], 0
    while position < len(data):
        starts.append(position)
        position += 12 + int.from_bytes(data[position + 8 : position + 12], "big")
    return starts


async def test_a_torn_last_batch_is_cut_and_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    written = await write_batches(tmp_path, 20)
    size = log_path(tmp_path, 0).stat().st_size
    last_start = batch_starts(tmp_path)[-1]
    os.truncate(log_path(tmp_path, 0), size - 7)
    with caplog.at_level(logging.WARNING):
        log, records = await reopen_and_read(tmp_path)
    assert records == [as_stored(r, i) for i, r in enumerate(written[:-3])]
    assert f"cut {last_start and size - 7 - last_start} bytes" in caplog.text
    assert log_path(tmp_path, 0).stat().st_size == last_start
    assert await log.append([make_record(999)]) == len(written) - 3  # offsets stay dense
    await log.close()


@pytest.mark.parametrize(
    "tail",
    [b"\x00" * 4096, os.urandom(100), b"\xff" * 11],
    ids=["zeros", "random", "short"],
)
async def test_garbage_after_the_last_batch_is_cut(tmp_path: Path, tail: bytes) -> None:
    written = await write_batches(tmp_path, 10)
    size = log_path(tmp_path, 0).stat().st_size
    with log_path(tmp_path, 0).open("ab") as f:
        f.write(tail)
    log, records = await reopen_and_read(tmp_path)
    assert records == [as_stored(r, i) for i, r in enumerate(written)]
    assert log_path(tmp_path, 0).stat().st_size == size
    await log.close()


async def test_a_flipped_byte_in_the_tail_cuts_from_that_batch(tmp_path: Path) -> None:
    written = await write_batches(tmp_path, 30)
    starts = batch_starts(tmp_path)
    with log_path(tmp_path, 0).open("r+b") as f:
        f.seek(starts[-2] + 50)
        byte = f.read(1)
        f.seek(starts[-2] + 50)
        f.write(bytes([byte[0] ^ 0x10]))
    log, records = await reopen_and_read(tmp_path)
    assert records == [as_stored(r, i) for i, r in enumerate(written[:-6])]
    await log.close()


@pytest.mark.parametrize("damaged", ["index", "timeindex", "both"])
async def test_garbage_in_the_active_indexes_is_rebuilt(tmp_path: Path, damaged: str) -> None:
    written = await write_batches(tmp_path, 40)
    if damaged in ("index", "both"):
        index_path(tmp_path, 0).write_bytes(os.urandom(203))
    if damaged in ("timeindex", "both"):
        time_index_path(tmp_path, 0).write_bytes(os.urandom(77))
    log, records = await reopen_and_read(tmp_path)
    assert records == [as_stored(r, i) for i, r in enumerate(written)]
    for offset in (0, 17, 60, len(written) - 1):
        assert (await log.read(offset, max_records=1))[0].offset == offset
    assert await log.offset_for_timestamp(written[50].timestamp_ms) == 50
    await log.close()
    assert index_path(tmp_path, 0).stat().st_size % 8 == 0
    assert time_index_path(tmp_path, 0).stat().st_size % 12 == 0


async def test_an_index_entry_pointing_at_the_wrong_batch_is_not_trusted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    written = await write_batches(tmp_path, 40)
    # Make the last entries of both indexes claim an offset one higher: still monotonic
    # and paired, so they validate, but the batch they point at says otherwise.
    for path, entry_size in ((index_path(tmp_path, 0), 8), (time_index_path(tmp_path, 0), 12)):
        data = bytearray(path.read_bytes())
        assert len(data) >= 2 * entry_size
        rel_at = 0 if entry_size == 8 else 8
        field = slice(len(data) - entry_size + rel_at, len(data) - entry_size + rel_at + 4)
        data[field] = (int.from_bytes(data[field], "big") + 1).to_bytes(4, "big")
        path.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING):
        log, records = await reopen_and_read(tmp_path)
    assert records == [as_stored(r, i) for i, r in enumerate(written)]
    assert "scanning from the start" in caplog.text
    await log.close()


async def test_an_empty_active_segment_recovers_to_nothing(tmp_path: Path) -> None:
    log = await PartitionLog.open(tmp_path, CONFIG)
    await log.close()
    log_path(tmp_path, 0).write_bytes(b"\x00" * 30)
    log = await PartitionLog.open(tmp_path, CONFIG)
    assert (log.start_offset, log.end_offset) == (0, 0)
    assert await log.read(0) == []
    await log.close()


async def test_index_entries_reach_their_files_in_bulk_and_never_ahead_of_the_log(
    tmp_path: Path,
) -> None:
    # An index entry for every batch after the first: the backlog fills fast.
    config = LogConfig(index_interval_bytes=1)
    log = await PartitionLog.open(tmp_path, config)
    for n in range(300):
        await log.append([make_record(n)])
    on_disk = index_path(tmp_path, 0).read_bytes()
    in_memory = log._segments.active.offset_index.packed()
    assert len(in_memory) == 299 * 8
    # Written while the log is open, in whole backlogs, a prefix of what the log holds.
    assert 0 < len(on_disk) < len(in_memory)
    assert in_memory.startswith(on_disk)
    assert len(time_index_path(tmp_path, 0).read_bytes()) // 12 == len(on_disk) // 8
    await log.close()
    assert index_path(tmp_path, 0).read_bytes() == in_memory  # and the rest on close
