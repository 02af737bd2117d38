"""A `tidemq node`'s HTTP for operators (tidemq/cluster/node_http.py), on real processes:
a node and a gateway over a real Redis, scraped and probed over HTTP."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from control_plane.secret_box import encode_master_key, new_master_key
from tests.conftest import TidemqProcess, sqs_client
from tidemq.redis_server import RedisServer, RedisServerConfig, free_port

METRICS_TOKEN = "scrape-me"
StartProcess = Callable[[str, Mapping[str, str]], TidemqProcess]


@pytest.fixture
def start_process(tmp_path: Path) -> Iterator[StartProcess]:
    """`start("node" | "gateway", settings)`: a cluster process, once its banner is out;
    every one started is killed at the end."""
    started: list[TidemqProcess] = []

    def start(role: str, settings: Mapping[str, str]) -> TidemqProcess:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("TIDEMQ_")},
            "TIDEMQ_DATA_DIR": str(tmp_path / f"{role}-{len(started)}"),
            "TIDEMQ_ARCHIVE_URL": str(tmp_path / "archive"),
            "PYTHONUNBUFFERED": "1",
            **settings,
        }
        process = subprocess.Popen(
            [sys.executable, "-m", "tidemq.cli", role],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        child = TidemqProcess(process)
        started.append(child)
        child.banner = _banner(child)
        child.read_on()
        return child

    yield start
    for child in started:
        if child.process.poll() is None:
            child.process.kill()
        child.wait()
        assert child.process.stdout is not None
        child.process.stdout.close()


def _banner(child: TidemqProcess) -> dict[str, str]:
    assert child.process.stdout is not None
    timer = threading.Timer(60, child.process.kill)
    timer.start()
    lines = []
    try:
        for line in child.process.stdout:
            lines.append(line)
            if line.startswith("Stop with Ctrl-C"):
                break
    finally:
        timer.cancel()
    banner = dict(re.findall(r"(?m)^  ([a-z][a-z ]*?)\s{2,}(\S.*)$", "".join(lines)))
    assert "endpoint" in banner, "".join(lines)
    return banner


def _node_settings(redis_url: str, **more: str) -> dict[str, str]:
    # Both ports free ones, as `tidemq up --nodes` runs them.
    return {"TIDEMQ_REDIS_URL": redis_url, "TIDEMQ_NODE_PORT": "0", "TIDEMQ_PORT": "0", **more}


def test_a_node_serves_its_health_and_its_metrics(
    redis_url: str, start_process: StartProcess
) -> None:
    node = start_process("node", _node_settings(redis_url, TIDEMQ_METRICS_TOKEN=METRICS_TOKEN))
    http = node.banner["http"]
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", http)
    assert http.rsplit(":", 1)[1] != node.banner["endpoint"].rsplit(":", 1)[1]
    assert httpx.get(f"{http}/healthz").json() == {"status": "ok"}
    assert httpx.get(f"{http}/readyz").json() == {"status": "ok"}

    port = free_port()
    start_process(
        "gateway",
        {
            "TIDEMQ_REDIS_URL": redis_url,
            "TIDEMQ_PORT": str(port),
            "TIDEMQ_MASTER_KEY": encode_master_key(new_master_key()),
            "TIDEMQ_ACCESS_KEY_ID": "TQNODEHTTPTESTKEY001",
            "TIDEMQ_SECRET_ACCESS_KEY": "node-http-test-secret",
        },
    )
    sqs = sqs_client(
        f"http://127.0.0.1:{port}",
        access_key_id="TQNODEHTTPTESTKEY001",
        secret_access_key="node-http-test-secret",
    )
    url = sqs.create_queue(QueueName="scraped")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="durable")

    refused = httpx.get(f"{http}/metrics")
    assert refused.status_code == 401
    assert "tidemq_fsync" not in refused.text
    scraped = httpx.get(f"{http}/metrics", headers={"authorization": f"Bearer {METRICS_TOKEN}"})
    assert scraped.status_code == 200
    assert scraped.headers["content-type"].startswith("text/plain")
    families = {f.name: f for f in text_string_to_metric_families(scraped.text)}
    syncs = {s.name: s.value for s in families["tidemq_fsync_duration_seconds"].samples}
    assert syncs["tidemq_fsync_duration_seconds_count"] >= 1  # the message's durable write
    assert families["tidemq_log_written_bytes"].samples[0].value > 0
    requests = {s.labels["operation"]: s.value for s in families["tidemq_node_requests"].samples}
    assert requests["APPEND"] >= 1  # the send, from the gateway over the node protocol
    assert "tidemq_local_log_bytes" in families
    assert "tidemq_tiering_lag_records" in families
    assert "process_resident_memory_bytes" in families
    # The gateway's families are the gateways' to serve: none here, not even empty.
    assert not [name for name in families if name.startswith("tidemq_queue_")]
    assert node.stop() == 0


def test_a_node_is_not_ready_while_redis_is_down(
    tmp_path: Path, start_process: StartProcess
) -> None:
    redis = RedisServer(RedisServerConfig(tmp_path / "redis"))
    redis.start()
    try:
        node = start_process("node", _node_settings(redis.url))
        http = node.banner["http"]
        assert httpx.get(f"{http}/readyz").status_code == 200
    finally:
        redis.stop()
    ready = httpx.get(f"{http}/readyz", timeout=10)
    assert ready.status_code == 503
    assert ready.json()["status"] == "unavailable"
    assert "control plane" in ready.json()["reason"]
    # Alive all the same: nothing to gain from replacing a node because Redis is down.
    assert httpx.get(f"{http}/healthz").status_code == 200
    node.process.send_signal(signal.SIGKILL)
    node.wait()


def test_a_node_refuses_an_http_port_in_use(
    redis_url: str, tmp_path: Path, start_process: StartProcess
) -> None:
    first = start_process("node", _node_settings(redis_url))
    taken = first.banner["http"].rsplit(":", 1)[1]
    result = subprocess.run(
        [sys.executable, "-m", "tidemq.cli", "node", "--port", taken],
        env={**os.environ, **_node_settings(redis_url, TIDEMQ_DATA_DIR=str(tmp_path / "2"))},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert f"cannot serve HTTP on 127.0.0.1:{taken}" in result.stderr
    assert first.stop() == 0
