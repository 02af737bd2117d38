"""`python -m loadtests.bench_abuse` end to end, tiny: every scenario runs and lands in the
JSON with its keys, its own `tidemq up` is measured and stopped; against a running
deployment (`--endpoint`) memory is not measured and its queues are gone afterwards."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from loadtests.abuse_scenarios import SCENARIOS
from loadtests.bench_abuse import main
from tests.conftest import TidemqUp

ROOT = Path(__file__).resolve().parents[2]
ROW_KEYS = {
    "scenario",
    "probe_calls",
    "p50_ms",
    "p99_ms",
    "errors",
    "first_error",
    "rss_before_mib",
    "rss_peak_mib",
    "rss_after_mib",
    "rss_ratio",
    "recovery_s",
    "abuse",
    "targets",
}
ABUSE_KEYS = {"requests", "statuses", "five_xx", "errors", "first_error"}
TINY = [
    "--seconds", "1",
    "--settle", "0.2",
    "--probe-rate", "20",
    "--recovery-timeout", "30",
    "--query-attributes", "50",
    "--query-connections", "1",
    "--send-concurrency", "10",
    "--long-polls", "20",
    "--slowloris", "10",
    "--ws-max-frames", "20",
    "--bad-requests", "24",
]  # fmt: skip


def _bench(tmp_path: Path, *args: str) -> dict[str, Any]:
    out = tmp_path / "abuse.json"
    done = subprocess.run(
        [sys.executable, "-m", "loadtests.bench_abuse", *TINY, "--dir", str(tmp_path),
         "--json", str(out), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "targets" in done.stdout, done.stdout  # the table's header
    report: dict[str, Any] = json.loads(out.read_text())
    return report


@pytest.mark.slow
def test_a_tiny_bench_reports_every_scenario(tmp_path: Path) -> None:
    report = _bench(tmp_path)
    rows = report["scenarios"]
    assert [row["scenario"] for row in rows] == ["baseline", *SCENARIOS]
    assert report["memory_measured"] is True
    for row in rows:
        assert set(row) == ROW_KEYS, row
        assert row["probe_calls"] > 0, row
        assert 0 < row["p50_ms"] <= row["p99_ms"], row
        assert 0 < row["rss_before_mib"] <= row["rss_peak_mib"], row
        assert row["rss_after_mib"] > 0, row
        assert row["recovery_s"] >= 0, row
        assert {"p99_under_50ms", "rss_within_20pct"} <= set(row["targets"]), row
        if row["scenario"] == "baseline":
            assert row["abuse"] is None
        else:
            assert set(row["abuse"]) >= ABUSE_KEYS, row
    by_name = {row["scenario"]: row for row in rows}
    assert by_name["send_burst"]["abuse"]["statuses"].get("201", 0) > 0
    assert by_name["long_poll_burst"]["abuse"]["statuses"] == {"200": 20}
    assert by_name["slowloris"]["abuse"]["connections"] == 10
    assert by_name["ws_flood"]["abuse"]["frames_sent"] > 0
    for bad in ("unicode_digits", "poison_xml"):
        assert by_name[bad]["abuse"]["requests"] == 24, by_name[bad]
        assert "no_5xx" in by_name[bad]["targets"]
    assert not list(tmp_path.glob("tidemq-abuse-*")), "the data directory was not removed"


@pytest.mark.slow
def test_against_a_running_tidemq_memory_is_not_measured(
    tidemq_up: TidemqUp, tmp_path: Path
) -> None:
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
    report = _bench(
        tmp_path,
        "--endpoint", up.endpoint,
        "--token", token.group(1),
        "--access-key-id", up.banner["access key id"],
        "--secret-access-key", up.banner["secret access key"],
        "--scenarios", "send_burst",
    )  # fmt: skip
    assert report["memory_measured"] is False
    rows = report["scenarios"]
    assert [row["scenario"] for row in rows] == ["baseline", "send_burst"]
    for row in rows:
        assert row["rss_before_mib"] is None
        assert row["targets"]["rss_within_20pct"] is None
    # The queues it made on somebody's deployment are gone again.
    assert up.sqs_client().list_queues().get("QueueUrls", []) == []


def test_unknown_scenarios_are_refused_before_anything_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--scenarios", "send_burst,nope", "--dir", str(tmp_path)]) == 2
    assert "unknown scenarios ['nope']" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
