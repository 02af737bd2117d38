"""Sealed segments: corrupt bytes raise, damaged indexes are rebuilt, reads use the index."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from storage_nodes.log.errors import CorruptRecordError
from storage_nodes.log.file_names import index_path, log_path, time_index_path
from storage_nodes.log.partition_log import LogConfig, PartitionLog
from storage_nodes.log.record import RecordIn

from .conftest import as_stored, make_record

CONFIG = LogConfig(index_interval_bytes=1024)


async def two_segments(directory: Path, per_segment: int = 60) -> list[RecordIn]:
    """A sealed segment [0, per_segment) and an active one after it, log closed."""
    log = await PartitionLog.open(directory, CONFIG)
    written = [make_record(n, size=200) for n in range(2 * per_segment)]
    for record in written[:per_segment]:
        await log.append([record])
    await log.roll()
    for record in written[per_segment:]:
        await log.append([record])
    await log.close()
    return written


async def test_a_flipped_byte_in_a_sealed_segment_raises_not_garbage(tmp_path: Path) -> None:
    written = await two_segments(tmp_path)
    path = log_path(tmp_path, 0)
    data = bytearray(path.read_bytes())
    position = len(data) // 2
    data[position] ^= 0x01
    path.write_bytes(bytes(data))
    log = await PartitionLog.open(tmp_path, CONFIG)
    with pytest.raises(CorruptRecordError) as caught:
        await log.read(0, max_records=1000)
    assert caught.value.path == path
    assert caught.value.position is not None
    assert caught.value.position <= position
    # Batches before the bad one, and the other segment, read fine.
    intact = await log.read(0, max_records=5)
    assert intact == [as_stored(r, i) for i, r in enumerate(written[:5])]
    assert (await log.read(60, max_records=1000)) == [
        as_stored(r, 60 + i) for i, r in enumerate(written[60:])
    ]
    await log.close()


async def test_a_flipped_length_in_a_sealed_segment_raises(tmp_path: Path) -> None:
    await two_segments(tmp_path)
    path = log_path(tmp_path, 0)
    data = bytearray(path.read_bytes())
    data[8] ^= 0x40  # first batch's batch_length: not covered by the CRC
    path.write_bytes(bytes(data))
    log = await PartitionLog.open(tmp_path, CONFIG)
    with pytest.raises(CorruptRecordError):
        await log.read(0)
    await log.close()


@pytest.mark.parametrize("which", ["index", "timeindex", "missing"])
async def test_damaged_sealed_indexes_are_rebuilt(
    tmp_path: Path, which: str, caplog: pytest.LogCaptureFixture
) -> None:
    written = await two_segments(tmp_path)
    good_index = index_path(tmp_path, 0).read_bytes()
    good_time = time_index_path(tmp_path, 0).read_bytes()
    assert len(good_index) >= 16
    if which == "index":
        index_path(tmp_path, 0).write_bytes(good_index[:8] + os.urandom(16) + good_index[24:])
    elif which == "timeindex":
        time_index_path(tmp_path, 0).write_bytes(os.urandom(len(good_time)))
    else:
        index_path(tmp_path, 0).unlink()
        time_index_path(tmp_path, 0).unlink()
    with caplog.at_level(logging.WARNING):
        log = await PartitionLog.open(tmp_path, CONFIG)
        for offset in range(0, 60, 7):
            assert await log.read(offset, max_records=2) == [
                as_stored(written[offset], offset),
                as_stored(written[offset + 1], offset + 1),
            ]
        assert await log.offset_for_timestamp(written[33].timestamp_ms) == 33
    assert "rebuilding" in caplog.text
    assert index_path(tmp_path, 0).read_bytes() == good_index
    assert time_index_path(tmp_path, 0).read_bytes() == good_time
    await log.close()


async def test_sealed_segment_info_describes_the_files(tmp_path: Path) -> None:
    written = await two_segments(tmp_path)
    log = await PartitionLog.open(tmp_path, CONFIG)
    [info] = log.sealed_segments()
    assert (info.base_offset, info.end_offset) == (0, 60)
    assert info.first_timestamp_ms == written[0].timestamp_ms
    assert info.max_timestamp_ms == written[59].timestamp_ms
    assert info.size_bytes == log_path(tmp_path, 0).stat().st_size
    assert (info.log_path, info.offset_index_path, info.time_index_path) == (
        log_path(tmp_path, 0),
        index_path(tmp_path, 0),
        time_index_path(tmp_path, 0),
    )
    await log.close()
