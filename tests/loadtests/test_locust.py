"""`loadtests/run.sh` end to end, tiny: every scenario at once (the `mix`, WebSocket users
included) for a few seconds against a real `tidemq up`, with the credentials passed as
the AWS CLI takes them. The run must fail no request, write its CSV files and its HTML
report, and leave none of its queues behind; a run with a wrong secret must fail."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import TidemqProcess, TidemqUp

ROOT = Path(__file__).resolve().parents[2]
RUN_SH = ROOT / "loadtests" / "run.sh"
_TOKEN_LINE = re.compile(r"^\s*token\s+(tqb_\S+)\s*$", re.MULTILINE)


def _token(data_dir: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "tidemq.cli", "keys", "token", "--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    found = _TOKEN_LINE.search(done.stdout)
    assert found is not None, done.stdout
    return found.group(1)


def _run(
    server: TidemqProcess, results: Path, scenario: str, secret: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(RUN_SH), server.endpoint, "4", scenario],
        env={
            **os.environ,
            "AWS_ACCESS_KEY_ID": server.banner["access key id"],
            "AWS_SECRET_ACCESS_KEY": secret or server.banner["secret access key"],
            "LOCUST_RESULTS_DIR": str(results),
            "PYTHON": sys.executable,
            **env,
        },
        cwd=results.parent,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def test_the_mix_runs_every_user_class_without_a_failure(
    tidemq_up: TidemqUp, tmp_path: Path
) -> None:
    data_dir = tmp_path / "tidemq"
    server = tidemq_up(data_dir=data_dir)
    results = tmp_path / "results"
    done = _run(server, results, "mix", TIDEMQ_TOKEN=_token(data_dir), LOCUST_USERS="6")
    assert done.returncode == 0, done.stdout + done.stderr

    assert (results / "mix.html").read_text().lstrip().lower().startswith("<!doctype html")
    with (results / "mix_stats.csv").open() as file:
        rows = {row["Name"]: row for row in csv.DictReader(file)}
    for name in (
        "rest send-batch",
        "rest receive",
        "sqs SendMessageBatch",
        "sqs ReceiveMessage",
        "sns PublishBatch",
        "ws publish",
        "ws subscribe",
    ):
        assert int(rows[name]["Request Count"]) > 0, (name, rows.keys())
    assert int(rows["Aggregated"]["Failure Count"]) == 0, rows["Aggregated"]
    # The run's queues and topic are gone (deleted at its end).
    sqs = server.sqs_client()
    assert not [u for u in sqs.list_queues().get("QueueUrls", []) if "/lt-" in u]


def test_a_run_whose_requests_fail_exits_non_zero(tidemq_up: TidemqUp, tmp_path: Path) -> None:
    server = tidemq_up()
    # Its queues are made (the key is right), but every WebSocket upgrade is refused.
    results = tmp_path / "results"
    done = _run(server, results, "ws", TIDEMQ_TOKEN="tqb_not-a-token", LOCUST_USERS="2")
    assert done.returncode != 0, done.stdout + done.stderr
    with (results / "ws_stats.csv").open() as file:
        rows = {row["Name"]: row for row in csv.DictReader(file)}
    assert int(rows["ws connect"]["Failure Count"]) == 2, rows
    # A key that signs wrong fails before anything starts, and says so.
    done = _run(server, results, "rest", secret="not-the-secret")
    assert done.returncode != 0, done.stdout + done.stderr
    assert "cannot make the run's queues" in done.stderr, done.stderr


def test_the_script_refuses_what_it_cannot_run(tmp_path: Path) -> None:
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "y"}
    env.pop("TIDEMQ_TOKEN", None)
    url = "http://127.0.0.1:1"
    for args in ([url], [url, "ten"], [url, "5", "nonsense"], [url, "5", "ws"]):
        done = subprocess.run(
            ["bash", str(RUN_SH), *args], env=env, capture_output=True, text=True, check=False
        )
        assert done.returncode != 0, args
        assert done.stderr.strip(), args
