"""`tidemq archive ls|stat` against a running gateway whose queue was tiered."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import (
    TEST_ACCESS_KEY_ID,
    TEST_SECRET_ACCESS_KEY,
    RunningGateway,
    start_gateway,
)
from tidemq.cli import main
from tidemq.redis_server import free_port
from tidemq.stack import ArchiveOptions


@pytest.fixture
def tiered(
    redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[RunningGateway]:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", TEST_ACCESS_KEY_ID)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", TEST_SECRET_ACCESS_KEY)
    options = ArchiveOptions(segment_bytes=2048, segment_ms=200, local_retention_ms=0)
    running = start_gateway(redis_url, tmp_path / "data", archive=options)
    sqs = running.sqs_client()
    url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    for start in range(0, 60, 10):
        entries = [{"Id": str(i), "MessageBody": "m" * 200} for i in range(start, start + 10)]
        sqs.send_message_batch(QueueUrl=url, Entries=entries)
    yield running
    running.stop()


def _archive(gateway: RunningGateway, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    deadline = time.monotonic() + 15
    while True:
        code = main(["archive", "stat", "--queue", "orders", "--json", "--endpoint", gateway.url])
        assert code == 0
        answer: dict[str, object] = json.loads(capsys.readouterr().out)
        [partition] = answer["partitions"]  # type: ignore[misc]
        if partition["archive_end_offset"] == 60 or time.monotonic() > deadline:
            return answer
        time.sleep(0.1)


def test_stat_and_ls_show_what_was_tiered(
    tiered: RunningGateway, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = _archive(tiered, capsys)
    [partition] = answer["partitions"]  # type: ignore[misc]
    assert answer["archive"] == (tiered.data_dir / "archive").resolve().as_uri()
    assert partition["archive_start_offset"] == 0
    assert partition["archive_end_offset"] == 60
    assert partition["log_end_offset"] == 60
    assert partition["records_behind"] == 0
    segments = partition["segments"]
    assert len(segments) > 2
    assert [s["base_offset"] for s in segments[1:]] == [s["end_offset"] for s in segments[:-1]]
    assert sum(s["records"] for s in segments) == 60
    assert partition["tiered_bytes"] == sum(s["bytes"] for s in segments)

    assert main(["archive", "stat", "--queue", "orders", "--endpoint", tiered.url]) == 0
    summary = capsys.readouterr().out
    assert "offsets 0..60 archived" in summary
    assert "0 records behind" in summary
    assert main(["archive", "ls", "--queue", "orders", "--endpoint", tiered.url]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert len(listing) == 2 + len(segments)  # the archive's URL, the header, the segments


def test_errors_say_what_to_do(tiered: RunningGateway, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["archive", "ls", "--queue", "nope", "--endpoint", tiered.url]) == 1
    assert "QueueDoesNotExist" in capsys.readouterr().err
    closed = f"http://127.0.0.1:{free_port()}"
    assert main(["archive", "stat", "--queue", "orders", "--endpoint", closed]) == 2
    assert "is `tidemq up` running?" in capsys.readouterr().err
