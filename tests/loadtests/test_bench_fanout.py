"""`python -m loadtests.bench_fanout` end to end, tiny: its own `tidemq up`, two
subscription counts, every row in the JSON with its keys and real numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loadtests.bench_fanout import main

ROW_KEYS = {
    "subscriptions",
    "publish_msgs_per_s",
    "publish_errors",
    "deliveries_per_s",
    "latency_p50_ms",
    "latency_p99_ms",
    "latency_samples",
}


@pytest.mark.slow
def test_a_tiny_run_measures_every_subscription_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fanout.json"
    argv = ["--dir", str(tmp_path), "--subscriptions", "1,3", "--seconds", "1", "--rate", "20"]
    assert main([*argv, "--workers", "4", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert [row["subscriptions"] for row in rows] == [1, 3]
    for row in rows:
        assert set(row) == ROW_KEYS
        assert row["publish_msgs_per_s"] > 0
        assert row["publish_errors"] == 0
        assert row["deliveries_per_s"] > 0
        # Every copy of every latency message was drained from every queue.
        assert row["latency_samples"] >= 10 * row["subscriptions"]
        assert 0 <= row["latency_p50_ms"] <= row["latency_p99_ms"]
    printed = capsys.readouterr().out
    assert "| subscriptions | publish msgs/s |" in printed
    assert "publish throughput with 3 subscriptions is" in printed
