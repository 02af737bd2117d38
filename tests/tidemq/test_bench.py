"""`tidemq bench` end to end, tiny: every workload runs and lands in the JSON, a run
against a running deployment (`--endpoint`) leaves no queue behind, and without the `load`
extra it says what to install instead of failing on an import."""

from __future__ import annotations

import json
import math
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import TidemqUp
from tidemq.bench.cli import WORKLOADS
from tidemq.cli import main

KEYS = {
    "workload",
    "msgs_per_s",
    "p50_ms",
    "p99_ms",
    "p999_ms",
    "ceiling_msgs_per_s",
    "ceiling_p99_ms",
    "disk_sync_p99_ms",
    "disk_sync_max_ms",
}
# The latency workloads, whose rows say what the disk's syncs did meanwhile.
PROBED = {"publish_single_rest_fixed_rate", "e2e_ws"}
PEER_KEYS = {"peer", "peer_msgs_per_s", "peer_p50_ms", "peer_p99_ms", "peer_p999_ms"}
# The workloads the Redis Streams peer has a shape for.
PEERED = {"publish_batch_rest", "consume_rest", "consume_ws", "publish_single_rest_fixed_rate"}
TINY = [
    "--messages", "200",
    "--seconds", "2",
    # No warm-up: 200 messages are drained within any warm-up, leaving nothing to measure.
    "--warmup", "0",
    "--rate", "200",
    "--connections", "4",
    "--sqs-threads", "2",
    "--batch-size", "20",
]  # fmt: skip


@pytest.mark.slow
def test_a_tiny_bench_reports_every_workload(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    code = main(
        [
            "bench",
            *TINY,
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
        assert row["ceiling_p99_ms"] > 0, row
        if row["workload"] in PROBED:
            assert 0 < row["disk_sync_p99_ms"] <= row["disk_sync_max_ms"], row
        else:
            assert row["disk_sync_p99_ms"] is row["disk_sync_max_ms"] is None, row
    assert not list(tmp_path.glob("tidemq-bench-*")), "the data directory was not removed"


@pytest.mark.slow
def test_a_tiny_bench_beside_the_redis_peer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--peer redis starts its own Redis (AOF always), runs the peered shapes against it,
    writes its figures and the ratio into the JSON rows, and stops it again."""
    out = tmp_path / "bench.json"
    chosen = "publish_batch_rest,consume_rest,publish_single_rest_fixed_rate,publish_ws"
    code = main(
        [
            "bench",
            "--peer", "redis",
            "--workloads", chosen,
            *TINY,
            "--dir", str(tmp_path),
            "--json", str(out),
        ]
    )  # fmt: skip
    assert code == 0
    rows = {row["workload"]: row for row in json.loads(out.read_text())}
    assert list(rows) == chosen.split(",")
    for name, row in rows.items():
        assert set(row) == KEYS | PEER_KEYS | {"ratio_to_peer"}, row
        assert row["peer"] == "redis"
        if name in PEERED:
            assert row["peer_msgs_per_s"] > 0, row
            assert 0 < row["peer_p50_ms"] <= row["peer_p99_ms"] <= row["peer_p999_ms"], row
            assert row["ratio_to_peer"] == pytest.approx(
                row["msgs_per_s"] / row["peer_msgs_per_s"], rel=0.01
            )
        else:
            assert row["peer_msgs_per_s"] is None, row
            assert row["ratio_to_peer"] is None, row
    printed = capsys.readouterr()
    table = printed.out
    assert "vs peer" in table
    assert re.search(r"publish_single_rest_fixed_rate .*p99 <= \d+\.\d\d ms: (met|MISSED)", table)
    # The peer's server is stopped, and its data went with the temporary directory.
    port = re.search(r"Redis Streams peer at 127\.0\.0\.1:(\d+) ", printed.err)
    assert port is not None, printed.err
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", int(port.group(1))), timeout=5).close()
    assert not list(tmp_path.glob("tidemq-bench-*")), "the data directory was not removed"


@pytest.mark.slow
def test_a_tiny_bench_against_a_running_tidemq(tidemq_up: TidemqUp, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    up = tidemq_up(data_dir=data_dir)
    made = subprocess.run(
        [sys.executable, "-m", "tidemq.cli", "keys", "token", "--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    token = re.search(r"^  token\s+(tqb_\S+)$", made.stdout, re.MULTILINE)
    assert token, made.stdout
    out = tmp_path / "bench.json"
    code = main(
        [
            "bench",
            "--endpoint", up.endpoint,
            "--token", token.group(1),
            "--access-key-id", up.banner["access key id"],
            "--secret-access-key", up.banner["secret access key"],
            "--workloads", "publish_batch_rest,consume_rest,publish_batch_sqs",
            *TINY,
            "--dir", str(tmp_path),
            "--json", str(out),
        ]
    )  # fmt: skip
    assert code == 0
    rows = json.loads(out.read_text())
    assert [row["workload"] for row in rows] == [
        "publish_batch_rest",
        "consume_rest",
        "publish_batch_sqs",
    ]
    assert all(row["msgs_per_s"] > 0 for row in rows), rows
    # The queues it made on somebody's deployment are gone again.
    assert up.sqs_client().list_queues().get("QueueUrls", []) == []
