from __future__ import annotations

import logging
from pathlib import Path

import pytest

from storage_nodes.log.file_names import index_path, log_path, time_index_path
from storage_nodes.log.log_loader import load_segments
from storage_nodes.log.partition_log import LogConfig, PartitionLog

from .conftest import as_stored, make_record


def test_a_new_directory_gets_an_empty_first_segment(tmp_path: Path) -> None:
    directory = tmp_path / "a" / "b"
    [segment] = load_segments(directory, 4096, 0)
    assert log_path(directory, 0).exists()
    assert (segment.base_offset, segment.next_offset, segment.sealed) == (0, 0, False)
    segment.close_files()


async def test_debris_of_interrupted_operations_is_swept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    log = await PartitionLog.open(tmp_path, LogConfig())
    written = [make_record(n) for n in range(10)]
    for record in written[:5]:
        await log.append([record])
    await log.roll()
    for record in written[5:]:
        await log.append([record])
    await log.close()
    # A delete interrupted after the oldest .log went, an index rewrite interrupted
    # before its rename, and a file that is none of ours.
    log_path(tmp_path, 0).unlink()
    (tmp_path / "00000000000000000005.index.tmp").write_bytes(b"partial")
    (tmp_path / "README").write_text("hands off")
    with caplog.at_level(logging.WARNING):
        log = await PartitionLog.open(tmp_path, LogConfig())
    assert not index_path(tmp_path, 0).exists()
    assert not time_index_path(tmp_path, 0).exists()
    assert not (tmp_path / "00000000000000000005.index.tmp").exists()
    assert (tmp_path / "README").exists()
    assert (log.start_offset, log.end_offset) == (5, 10)
    assert await log.read(0) == [as_stored(r, 5 + i) for i, r in enumerate(written[5:])]
    assert "index without its log" in caplog.text
    await log.close()
