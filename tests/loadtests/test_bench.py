"""`tidemq bench` end to end, tiny: every workload runs and lands in the JSON."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from loadtests.bench import WORKLOADS
from tidemq.cli import main

KEYS = {"workload", "msgs_per_s", "p50_ms", "p99_ms", "p999_ms", "ceiling_msgs_per_s"}


@pytest.mark.slow
def test_a_tiny_bench_reports_every_workload(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    code = main(
        [
            "bench",
            "--messages", "200",
            "--seconds", "2",
            # No warm-up: 200 messages are drained within any warm-up, leaving nothing
            # to measure.
            "--warmup", "0",
            "--rate", "200",
            "--connections", "4",
            "--sqs-threads", "2",
            "--batch-size", "20",
            "--dir", str(tmp_path),
            "--json", str(out),
        ]
    )  # fmt: skip
    assert code == 0
    rows = json.loads(out.read_text())
    assert [row["workload"] for row in rows] == list(WORKLOADS)
    for row in rows:
        assert set(row) == KEYS
        assert row["msgs_per_s"] > 0, row
        assert row["ceiling_msgs_per_s"] > 0, row
        assert 0 < row["p50_ms"] <= row["p99_ms"] <= row["p999_ms"], row
        assert math.isfinite(row["p999_ms"])
    assert not list(tmp_path.glob("tidemq-bench-*")), "the data directory was not removed"
