"""spark/jobs/replay.py: which messages it selects, what it sends for each, and a replay
through a running TideMQ, from what that TideMQ tiered, checked byte for byte."""

from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import Row, SparkSession

from spark.jobs import replay
from spark.jobs.common import JobError
from tests.conftest import TEST_ACCESS_KEY_ID, TEST_SECRET_ACCESS_KEY, RunningGateway
from tests.spark.archive_builder import Archive, record
from tests.spark.tiered import archive_url, send, wait_until_archived

T0 = 1_764_000_000_000


def attribute(data_type: str, string: str | None = None, binary: bytes | None = None) -> Row:
    return Row(data_type=data_type, string_value=string, binary_value=binary)


def row(**fields: Any) -> Row:
    values: dict[str, Any] = {
        "partition": 0, "offset": 7, "message_id": "m-7", "group_id": None,
        "deduplication_id": None, "attributes": {}, "body": bytearray(b"hello"),
    }  # fmt: skip
    return Row(**(values | fields))


def target(queue: str = "q") -> replay.Target:
    return replay.Target(queue, "http://127.0.0.1:1", "us-east-1")


def test_an_entry_carries_the_body_and_the_attributes() -> None:
    message = replay.entry(
        row(
            attributes={
                "n": attribute("Number", "3"),
                "b": attribute("Binary", None, bytearray(b"\x00")),
            }
        ),
        target(),
    )

    assert message == {
        "MessageBody": "hello",
        "MessageAttributes": {
            "n": {"DataType": "Number", "StringValue": "3"},
            "b": {"DataType": "Binary", "BinaryValue": b"\x00"},
        },
    }


def test_into_a_fifo_queue_an_entry_has_a_group_and_a_deduplication_id() -> None:
    fifo = target("http://host/123456789012/q.fifo")

    assert replay.entry(row(), fifo)["MessageGroupId"] == "replay"
    assert replay.entry(row(), fifo)["MessageDeduplicationId"] == "m-7"
    kept = replay.entry(row(group_id="g", deduplication_id="d"), fifo)
    assert (kept["MessageGroupId"], kept["MessageDeduplicationId"]) == ("g", "d")
    assert "MessageGroupId" not in replay.entry(row(group_id="g"), target())


def test_a_body_sqs_cannot_carry_is_refused_by_name() -> None:
    with pytest.raises(
        replay.ReplayError,
        match="message m-7 \\(partition 0, offset 7\\) has a body that is not UTF-8",
    ):
        replay.entry(row(body=bytearray(b"\xff\xfe")), target())


def test_batches_hold_ten_entries_or_fewer_bytes() -> None:
    rows = [row(body=bytearray(b"x" * 100), offset=i) for i in range(25)]
    small = replay.Target("q", None, "us-east-1", max_batch_bytes=350)

    assert [len(b) for b in replay._batches(rows, target())] == [10, 10, 5]
    assert [len(b) for b in replay._batches(rows, small)] == [3] * 8 + [1]


def test_the_selection_is_the_window(
    spark_session: SparkSession, archive: Archive, tmp_path: Path
) -> None:
    stream = archive.create_stream("orders", partitions=2)
    for partition in range(2):
        stream.add_segment(
            partition, [[record(10 * partition + i, timestamp_ms=T0 + 1000 * i)] for i in range(10)]
        )
    args = replay.parser().parse_args(
        [
            "--path",
            archive.url,
            "--queue",
            "orders",
            "--to",
            "x",
            "--start",
            str(T0 + 3000),
            "--end",
            str(T0 + 6000),
        ]
    )

    selected = sorted((r.partition, r.offset) for r in replay.select(spark_session, args).collect())

    assert selected == [(p, o) for p in range(2) for o in (3, 4, 5)]
    assert replay.run(spark_session, replay.parser().parse_args([*_argv(args), "--dry-run"])) == 0


def _argv(args: Any) -> list[str]:
    return [
        "--path",
        args.path,
        "--queue",
        args.queue,
        "--to",
        args.to,
        "--start",
        str(args.start),
        "--end",
        str(args.end),
    ]


def test_an_empty_window_is_refused(archive: Archive) -> None:
    archive.create_stream("orders")
    args = replay.parser().parse_args(
        ["--path", archive.url, "--queue", "orders", "--to", "x", "--start", "10", "--end", "10"]
    )

    with pytest.raises(JobError, match="--start must be before --end"):
        replay.check(args)


def receive_all(sqs: Any, url: str, count: int) -> list[dict[str, Any]]:
    """Receives (and deletes) `count` messages, then checks that no more come."""
    received: list[dict[str, Any]] = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        answer = sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1,
            MessageAttributeNames=["All"], AttributeNames=["All"],
        )  # fmt: skip
        for message in answer.get("Messages", []):
            received.append(message)
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
        if len(received) >= count and not answer.get("Messages"):
            break
    return received


def replay_args(gateway: RunningGateway, queue: str, to: str, *window: str) -> Any:
    return replay.parser().parse_args(
        ["--path", archive_url(gateway), "--queue", queue, "--to", to,
         "--endpoint-url", gateway.url, "--access-key-id", TEST_ACCESS_KEY_ID,
         "--secret-access-key", TEST_SECRET_ACCESS_KEY, *window]
    )  # fmt: skip


def sent_as_received(entry: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return entry["MessageBody"], entry["MessageAttributes"]


def got(message: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    attributes = {
        name: {k: v for k, v in value.items() if k in ("DataType", "StringValue", "BinaryValue")}
        for name, value in message.get("MessageAttributes", {}).items()
    }
    return message["Body"], attributes


def test_a_window_of_a_queue_is_replayed_into_another_byte_for_byte(
    spark_session: SparkSession, tiering_gateway: RunningGateway
) -> None:
    sqs = tiering_gateway.sqs_client()
    source = sqs.create_queue(QueueName="orders")["QueueUrl"]
    target_url = sqs.create_queue(QueueName="orders-replay")["QueueUrl"]
    before = send(sqs, source, 30)
    time.sleep(0.05)
    start_ms = int(time.time() * 1000)
    inside = send(sqs, source, 40, first=30)
    end_ms = int(time.time() * 1000) + 1
    time.sleep(0.05)
    after = send(sqs, source, 30, first=70)
    wait_until_archived(archive_url(tiering_gateway), "orders", len(before + inside + after))

    args = replay_args(
        tiering_gateway, "orders", "orders-replay", "--start", str(start_ms), "--end", str(end_ms)
    )
    assert replay.run(spark_session, args) == 0

    received = receive_all(sqs, target_url, len(inside))
    assert sorted(map(got, received), key=repr) == sorted(map(sent_as_received, inside), key=repr)


def test_into_a_fifo_queue_each_group_keeps_its_order(
    spark_session: SparkSession, tiering_gateway: RunningGateway
) -> None:
    sqs = tiering_gateway.sqs_client()
    fifo = {"FifoQueue": "true"}
    source = sqs.create_queue(QueueName="orders.fifo", Attributes=fifo)["QueueUrl"]
    target_url = sqs.create_queue(QueueName="replayed.fifo", Attributes=fifo)["QueueUrl"]
    sent = send(sqs, source, 45, fifo=True)
    wait_until_archived(archive_url(tiering_gateway), "orders.fifo", len(sent))

    assert replay.run(spark_session, replay_args(tiering_gateway, "orders.fifo", target_url)) == 0

    received = receive_all(sqs, target_url, len(sent))
    by_group: dict[str, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    for message in received:
        by_group[message["Attributes"]["MessageGroupId"]].append(got(message))
    expected: dict[str, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    for entry in sent:
        expected[entry["MessageGroupId"]].append(sent_as_received(entry))
    assert by_group == expected
