"""A queue of several partitions in the archive and in `tidemq up`: `tidemq archive stat`
shows each partition, the Spark reader's planner (spark/archive_reader.py, no JVM
needed) finds every partition's segments through the stream's `stream.json`, with each
record once, and an embedded TideMQ spreads sends over the partitions."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from spark.archive_reader import find_stream, plan_slices, read_manifests
from spark.options import parse_options
from spark.schema import SCHEMA
from spark.segment_partition import SegmentPartition, read_slice
from storage_nodes.archive.local_store import LocalDirStore
from tests.conftest import TEST_ACCESS_KEY_ID, TEST_SECRET_ACCESS_KEY, TidemqUp, start_gateway
from tidemq.cli import main
from tidemq.stack import ArchiveOptions

RECORDS = 80


def _stat(url: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """`tidemq archive stat --json`, once every record is archived (or 15 s went by)."""
    deadline = time.monotonic() + 15
    while True:
        code = main(["archive", "stat", "--queue", "wide", "--json", "--endpoint", url])
        assert code == 0
        answer: dict[str, Any] = json.loads(capsys.readouterr().out)
        archived = sum(p["archive_end_offset"] for p in answer["partitions"])
        if archived == RECORDS or time.monotonic() > deadline:
            return answer
        time.sleep(0.1)


def test_every_partition_is_archived_and_read_back(
    redis_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", TEST_ACCESS_KEY_ID)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", TEST_SECRET_ACCESS_KEY)
    options = ArchiveOptions(segment_bytes=2048, segment_ms=200, local_retention_ms=0)
    gateway = start_gateway(redis_url, tmp_path / "data", archive=options)
    try:
        sqs = gateway.sqs_client()
        url = sqs.create_queue(QueueName="wide", Attributes={"Partitions": "4"})["QueueUrl"]
        for start in range(0, RECORDS, 5):
            entries = [
                {"Id": str(i), "MessageBody": f"{i:04d}" + "m" * 200}
                for i in range(start, start + 5)
            ]
            assert len(sqs.send_message_batch(QueueUrl=url, Entries=entries)["Successful"]) == 5
        answer = _stat(gateway.url, capsys)
    finally:
        gateway.stop()
    partitions = answer["partitions"]
    assert [p["partition"] for p in partitions] == [0, 1, 2, 3]
    assert sum(p["archive_end_offset"] for p in partitions) == RECORDS
    assert len([p for p in partitions if p["archive_end_offset"]]) >= 2  # 16 batches over 4

    store = LocalDirStore(gateway.data_dir / "archive")
    found = find_stream(store, parse_options({"path": store.url, "queue": "wide"}))
    assert found.partitions == 4
    read = parse_options({"path": store.url, "queue": "wide"})
    manifests = read_manifests(store, found, read.bounds)
    slices = plan_slices(store, found.stream_id, manifests, read.bounds, 1 << 26)
    rows = [
        row
        for planned in (SegmentPartition.of(found, s) for s in slices)
        for batch in read_slice(store, planned, SCHEMA)
        for row in batch.to_pylist()
    ]
    assert sorted(bytes(row["body"])[:4].decode() for row in rows) == [
        f"{i:04d}" for i in range(RECORDS)
    ]
    per_partition = {p["partition"]: p["archive_end_offset"] for p in partitions}
    assert {
        p: len([r for r in rows if r["partition"] == p]) for p in per_partition
    } == per_partition


def test_tidemq_up_spreads_sends_over_the_partitions_and_receives_them_all(
    tidemq_up: TidemqUp, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    up = tidemq_up()
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", up.banner["access key id"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", up.banner["secret access key"])
    sqs = up.sqs_client()
    url = sqs.create_queue(QueueName="wide", Attributes={"Partitions": "4"})["QueueUrl"]
    sent = set()
    for i in range(30):
        entries = [{"Id": str(j), "MessageBody": f"m{i}-{j}"} for j in range(2)]
        assert len(sqs.send_message_batch(QueueUrl=url, Entries=entries)["Successful"]) == 2
        sent |= {e["MessageBody"] for e in entries}
    assert (
        main(["archive", "stat", "--queue", "wide", "--json", "--endpoint", up.banner["endpoint"]])
        == 0
    )
    ends = [p["log_end_offset"] for p in json.loads(capsys.readouterr().out)["partitions"]]
    assert (len(ends), sum(ends)) == (4, 60)
    assert len([end for end in ends if end]) >= 3  # 30 batches over 4 at random
    received: list[str] = []
    while batch := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages"):
        received += [m["Body"] for m in batch]
        sqs.delete_message_batch(
            QueueUrl=url,
            Entries=[{"Id": m["MessageId"], "ReceiptHandle": m["ReceiptHandle"]} for m in batch],
        )
    assert sorted(received) == sorted(sent)
    assert up.stop() == 0
