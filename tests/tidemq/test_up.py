"""`tidemq up` run the way a user runs it: as a command, stopped with a signal."""

from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

import pytest

from tests.conftest import TidemqUp


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT])
def test_up_serves_boto3_and_stops_cleanly(tidemq_up: TidemqUp, stop_signal: int) -> None:
    up = tidemq_up()
    sqs = up.sqs_client()
    url = sqs.create_queue(QueueName="hello")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="world")
    assert sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "world"
    redis_pid = up.redis_pid()

    assert up.stop(stop_signal) == 0
    output = "".join(up.output)
    assert "Traceback" not in output
    assert "TideMQ stopped" in output
    assert not _alive(redis_pid)


def test_data_survives_a_restart(tidemq_up: TidemqUp, tmp_path: Path) -> None:
    data_dir = tmp_path / "kept"
    up = tidemq_up(data_dir=data_dir)
    sqs = up.sqs_client()
    url = sqs.create_queue(QueueName="durable")["QueueUrl"]
    for body in ["one", "two", "three"]:
        sqs.send_message(QueueUrl=url, MessageBody=body)
    [first] = sqs.receive_message(QueueUrl=url)["Messages"]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=first["ReceiptHandle"])
    credentials = (up.banner["access key id"], up.banner["secret access key"])
    assert up.stop() == 0

    again = tidemq_up(data_dir=data_dir)
    assert (again.banner["access key id"], again.banner["secret access key"]) == credentials
    sqs = again.sqs_client()
    url = sqs.get_queue_url(QueueName="durable")["QueueUrl"]
    received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    bodies = [m["Body"] for m in received]
    assert bodies == ["two", "three"]


def test_a_busy_port_is_reported_with_what_to_do(tidemq_up: TidemqUp) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(RuntimeError, match=r"pass --port \(TIDEMQ_PORT\)"):
            tidemq_up(port=port)


def test_one_data_dir_serves_one_launcher(tidemq_up: TidemqUp, tmp_path: Path) -> None:
    tidemq_up(data_dir=tmp_path / "shared")
    with pytest.raises(RuntimeError, match="is in use by another tidemq"):
        tidemq_up(data_dir=tmp_path / "shared")
