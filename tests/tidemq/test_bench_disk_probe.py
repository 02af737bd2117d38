"""The bench's disk probe (tidemq/bench/disk_probe.py): it times real syncs of a file of
its own while its block runs, and leaves nothing behind."""

from __future__ import annotations

import math
import time
from pathlib import Path

import pytest

from tidemq.bench.disk_probe import PROBE_BYTES, DiskProbe


def test_it_times_syncs_while_its_block_runs_and_removes_its_file(tmp_path: Path) -> None:
    with DiskProbe(tmp_path, interval_s=0.005) as probe:
        time.sleep(0.3)
        timed = len(probe.syncs_ms)
        written = probe.path.stat().st_size
    assert timed >= 5
    # Each sync followed one append: the file held as many records as syncs timed then.
    assert written in range((timed - 1) * PROBE_BYTES, (timed + 2) * PROBE_BYTES)
    assert all(ms > 0 for ms in probe.syncs_ms)
    assert 0 < probe.percentile(50) <= probe.percentile(99) <= probe.max_ms
    assert not probe.path.exists()
    after = len(probe.syncs_ms)
    time.sleep(0.05)
    assert len(probe.syncs_ms) == after, "the thread went on after the block"


def test_before_any_sync_it_has_no_figures(tmp_path: Path) -> None:
    probe = DiskProbe(tmp_path, interval_s=60)
    with probe:
        pass
    assert probe.syncs_ms == []
    assert math.isnan(probe.percentile(99))
    assert math.isnan(probe.max_ms)


def test_a_directory_that_is_not_there_fails_at_once(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError), DiskProbe(tmp_path / "missing"):
        pass
