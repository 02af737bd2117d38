"""A full disk: publishes get a retryable 503 and /readyz fails, both until space returns,
and nothing acknowledged is lost. The data directory is a real tmpfs of a few hundred KiB
(the tests run as root, as CI does)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import RunningGateway, start_gateway
from tidemq.stack import ArchiveOptions


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount_point = tmp_path / "small"
    mount_point.mkdir()
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=384k", "tmpfs", str(mount_point)], check=True
    )
    yield mount_point
    subprocess.run(["umount", "-l", str(mount_point)], check=True)


def _grow(mount_point: Path) -> None:
    subprocess.run(["mount", "-o", "remount,size=64m", "tmpfs", str(mount_point)], check=True)


def test_a_full_disk_answers_503_until_space_returns(
    redis_url: str, tmp_path: Path, small_disk: Path
) -> None:
    # The archive lives elsewhere: only the log fills the small disk.
    archive = ArchiveOptions(url=str(tmp_path / "archive"))
    gateway: RunningGateway = start_gateway(redis_url, small_disk / "data", archive=archive)
    try:
        sqs = gateway.sqs_client()
        url = sqs.create_queue(QueueName="orders")["QueueUrl"]
        acknowledged = []
        refused = None
        for i in range(2_000):
            body = f"{i:05d}" + "x" * 995
            try:
                sqs.send_message(QueueUrl=url, MessageBody=body)
            except sqs.exceptions.ClientError as exc:
                refused = exc
                break
            acknowledged.append(body)
        assert refused is not None, "the disk filled up"
        assert refused.response["ResponseMetadata"]["HTTPStatusCode"] == 503
        assert refused.response["Error"]["Code"] == "ServiceUnavailable"
        ready = httpx.get(f"{gateway.url}/readyz")
        assert ready.status_code == 503
        assert "No space left" in ready.json()["reason"]

        _grow(small_disk)
        assert httpx.get(f"{gateway.url}/readyz").status_code == 200
        sqs.send_message(QueueUrl=url, MessageBody="after")
        received = []
        while True:
            answer = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0)
            messages = answer.get("Messages", [])
            if not messages:
                break
            received += [m["Body"] for m in messages]
        assert sorted(received) == sorted([*acknowledged, "after"])
    finally:
        gateway.stop()
