"""The reader on archives it did not build: what a running TideMQ tiered (messages sent
over the SQS API), and an archive on S3 (moto, in its own process)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from storage_nodes.archive.s3_store import S3Store
from tests.conftest import MotoProcess, RunningGateway
from tests.spark.archive_builder import Archive, record
from tests.spark.conftest import rows
from tests.spark.tiered import archive_url, send, wait_until_archived
from tests.storage_nodes.archive.conftest import moto_options, raw_client


def as_rows(sent: list[dict[str, Any]]) -> list[tuple[object, ...]]:
    """What the reader should return of them: (body, attributes, group id, dedup id)."""
    return [
        (
            entry["MessageBody"].encode(),
            sorted(
                (name, (a["DataType"], a.get("StringValue"), a.get("BinaryValue")))
                for name, a in entry["MessageAttributes"].items()
            ),
            entry.get("MessageGroupId"),
            entry.get("MessageDeduplicationId"),
        )
        for entry in sent
    ]


@pytest.mark.parametrize("queue", ["orders", "orders.fifo"])
def test_what_tidemq_tiered_reads_back_as_it_was_sent(
    spark_session: SparkSession, tiering_gateway: RunningGateway, queue: str
) -> None:
    sqs = tiering_gateway.sqs_client()
    attributes = {"FifoQueue": "true"} if queue.endswith(".fifo") else {}
    url = sqs.create_queue(QueueName=queue, Attributes=attributes)["QueueUrl"]
    sent = send(sqs, url, 120, fifo=bool(attributes))
    wait_until_archived(archive_url(tiering_gateway), queue, len(sent))

    df = (
        spark_session.read.format("tidemq")
        .option("path", archive_url(tiering_gateway))
        .option("queue", queue)
        .load()
    )
    got = rows(df)

    assert df.rdd.getNumPartitions() > 1  # several sealed segments
    assert [r[3] for r in got] == list(range(len(sent)))  # dense offsets, in order
    assert [(r[9], r[8], r[6], r[7]) for r in got] == as_rows(sent)
    assert {(r[0], r[1]) for r in got} == {("123456789012", queue)}


@pytest.fixture
def s3_archive(s3_server: MotoProcess, tmp_path: Path) -> Archive:
    options = moto_options(s3_server)
    bucket = f"spark-{uuid.uuid4().hex[:12]}"
    raw_client(options).create_bucket(Bucket=bucket)
    return Archive(tmp_path, S3Store(bucket, "tidemq/archive", options))


def test_an_archive_on_s3_is_read_with_the_s3_options(
    spark_session: SparkSession, s3_archive: Archive, s3_server: MotoProcess
) -> None:
    stream = s3_archive.create_stream("orders", partitions=2)
    stream.add_segment(0, [[record(i) for i in range(5)], [record(5)]])
    stream.add_segment(0, [[record(6, body=bytes(100_000))]])
    stream.add_segment(1, [[record(7)]])

    df = (
        spark_session.read.format("tidemq")
        .option("path", s3_archive.url)
        .option("queue", "orders")
        .option("s3_endpoint_url", s3_server.endpoint_url)
        .option("s3_region", "us-east-1")
        .option("s3_access_key_id", "testing")
        .option("s3_secret_access_key", "testing")
        .load()
    )

    assert s3_archive.url.startswith("s3://")
    assert df.rdd.getNumPartitions() == 3
    assert rows(df) == stream.rows()
