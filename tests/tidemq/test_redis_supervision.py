"""The embedded Redis killed under load: `tidemq up` restarts it from its AOF, keeps every
acknowledged message, leaves no zombie; killed again and again, it exits non-zero for its
supervisor instead of answering 503 forever."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import TidemqProcess, TidemqUp


def _redis_pid(data_dir: Path) -> int | None:
    try:
        return int((data_dir / "redis" / "redis.pid").read_text())
    except (FileNotFoundError, ValueError):
        return None


def _is_gone_or_reaped(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" not in status


def _kill_and_wait_for_restart(data_dir: Path, server: TidemqProcess) -> int:
    old = _redis_pid(data_dir)
    assert old is not None
    os.kill(old, signal.SIGKILL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and server.process.poll() is None:
        new = _redis_pid(data_dir)
        if new is not None and new != old and Path(f"/proc/{new}").exists():
            return new
        time.sleep(0.05)
    return old


@pytest.mark.slow
def test_a_killed_redis_is_restarted_and_nothing_acknowledged_is_lost(
    tidemq_up: TidemqUp, tmp_path: Path
) -> None:
    data_dir = tmp_path / "tidemq"
    server = tidemq_up(data_dir=data_dir)
    sqs = server.sqs_client()
    url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    acknowledged: list[str] = []
    refused = 0
    done = threading.Event()

    def publish() -> None:
        nonlocal refused
        i = 0
        while not done.is_set() and i < 5_000:
            body = f"m{i}"
            try:
                sqs.send_message(QueueUrl=url, MessageBody=body)
                acknowledged.append(body)
            except Exception:  # 503s while Redis is down: the client retries later
                refused += 1
                time.sleep(0.05)
            i += 1

    publisher = threading.Thread(target=publish)
    publisher.start()
    time.sleep(0.5)
    old = _redis_pid(data_dir)
    assert old is not None
    new = _kill_and_wait_for_restart(data_dir, server)
    assert new != old, "the supervisor started Redis again"
    before = len(acknowledged)
    deadline = time.monotonic() + 20
    while len(acknowledged) < before + 20 and time.monotonic() < deadline:
        time.sleep(0.05)
    done.set()
    publisher.join()
    assert len(acknowledged) >= before + 20, "publishes succeed again after the restart"
    assert _is_gone_or_reaped(old), "the dead Redis is no zombie"
    assert httpx.get(f"{server.endpoint}/readyz").status_code == 200

    received: set[str] = set()
    while True:
        answer = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)
        messages = answer.get("Messages", [])
        if not messages:
            break
        received |= {m["Body"] for m in messages}
        sqs.delete_message_batch(
            QueueUrl=url,
            Entries=[
                {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(messages)
            ],
        )
    assert set(acknowledged) <= received, "every acknowledged message survived"
    assert server.stop() == 0


@pytest.mark.slow
def test_redis_dying_again_and_again_stops_tidemq_with_a_clear_message(
    tidemq_up: TidemqUp, tmp_path: Path
) -> None:
    data_dir = tmp_path / "tidemq"
    server = tidemq_up(data_dir=data_dir)
    for _ in range(6):
        if server.process.poll() is not None:
            break
        _kill_and_wait_for_restart(data_dir, server)
    code = server.wait()
    out = server.text
    assert code == 2
    assert "the embedded Redis died 6 times within 60 s" in out
    assert "start TideMQ again once that is fixed" in out
