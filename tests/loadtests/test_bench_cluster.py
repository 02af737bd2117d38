"""`python -m loadtests.bench_cluster` end to end, tiny: a cluster of one node and one
gateway measured, then the failover of a two-node cluster, every figure real."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loadtests.bench_cluster import main

CELL_KEYS = {
    "nodes",
    "gateways",
    *(f"{run}_{figure}" for run in ("publish", "consume") for figure in
      ("msgs_per_s", "p50_ms", "p99_ms", "errors")),
}  # fmt: skip
FAILOVER_KEYS = {
    "nodes",
    "lease_ttl_ms",
    "gap_s",
    "longest_send_s",
    "sends",
    "errors",
    "first_error",
}
TTL_MS = 1_000


@pytest.mark.slow
def test_a_tiny_run_measures_throughput_and_the_failover_gap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cluster.json"
    argv = ["--dir", str(tmp_path), "--nodes", "1", "--gateways", "1", "--seconds", "1"]
    argv += ["--warmup", "0.2", "--connections", "8", "--partitions", "2"]
    argv += ["--failover-nodes", "2", "--lease-ttl-ms", str(TTL_MS), "--kill-after", "1"]
    assert main([*argv, "--json", str(out)]) == 0
    document = json.loads(out.read_text())
    [cell] = document["cells"]
    assert set(cell) == CELL_KEYS
    assert (cell["nodes"], cell["gateways"]) == (1, 1)
    assert cell["publish_msgs_per_s"] > 0
    assert cell["consume_msgs_per_s"] > 0
    assert cell["publish_errors"] == cell["consume_errors"] == 0
    assert 0 < cell["publish_p50_ms"] <= cell["publish_p99_ms"]
    failover = document["failover"]
    assert set(failover) == FAILOVER_KEYS
    assert failover["lease_ttl_ms"] == TTL_MS
    # Served again within the lease TTL plus a few seconds (docs/cluster.md).
    assert 0 < failover["gap_s"] <= TTL_MS / 1000 + 3
    assert failover["sends"] > failover["errors"]
    printed = capsys.readouterr().out
    assert "| nodes | gateways | publish msgs/s |" in printed
    assert "| SIGKILL of the owner, 2 nodes | 1,000 ms |" in printed
    # No data directory is left behind.
    assert not list(tmp_path.glob("tidemq-bench-cluster-*"))
