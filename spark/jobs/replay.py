"""Replays a time window of one archived queue into another queue, through TideMQ's SQS
API (or any SQS endpoint).

    python -m spark.jobs.replay --path file:///var/lib/tidemq/archive --queue orders \\
        --start 2025-11-24T10:00:00Z --end 2025-11-24T11:00:00Z \\
        --to orders-replay --endpoint-url http://127.0.0.1:9324

Every message whose timestamp is in [--start, --end) is sent again with its body and its
message attributes (SendMessageBatch, 10 messages or 256 KiB a call, failed entries
retried). Into a FIFO queue (`*.fifo`) messages go from the driver in (partition,
offset) order, each with its message group id (--group-id for messages without one) and
its deduplication id (its message id when it had none, so replaying twice within five
minutes sends each message once); into a standard queue each segment is sent by its own
Spark task, in parallel.

Credentials: --access-key-id / --secret-access-key, else boto3's usual sources
(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_PROFILE, ...). --dry-run counts and
shows the selection without sending.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import boto3
from botocore.exceptions import BotoCoreError, ClientError
from pyspark.sql import DataFrame, Row, SparkSession

from spark.jobs.common import (
    FAILED,
    OK,
    JobError,
    add_archive_arguments,
    find_queue,
    main_with,
    progress,
    read_queue,
    reader_options,
    say,
)

MAX_BATCH_ENTRIES = 10  # SQS SendMessageBatch
DEFAULT_MAX_BATCH_BYTES = 256 * 1024
_ATTEMPTS = 5


class ReplayError(JobError):
    """Messages the target refused, could not be reached, or a body SQS cannot carry."""

    exit_status = FAILED


@dataclass(frozen=True)
class Target:
    """Where and how to send: everything a Spark task needs, picklable."""

    queue: str  # a queue URL or name
    endpoint_url: str | None
    region: str
    access_key_id: str | None = None
    secret_access_key: str | None = field(default=None, repr=False)
    group_id: str = "replay"
    max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES

    @property
    def fifo(self) -> bool:
        return self.queue.rstrip("/").endswith(".fifo")

    def client(self) -> Any:
        return boto3.client(
            "sqs",
            endpoint_url=self.endpoint_url,
            region_name=self.region,
            aws_access_key_id=self.access_key_id,
            aws_secret_access_key=self.secret_access_key,
        )


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m spark.jobs.replay", description=__doc__.split("\n\n")[0]
    )
    add_archive_arguments(parser)
    parser.add_argument("--queue", required=True, help="the archived queue to replay")
    target = parser.add_argument_group("the target")
    target.add_argument("--to", required=True, help="queue URL or name to send to")
    target.add_argument("--endpoint-url", help="SQS endpoint, e.g. http://127.0.0.1:9324")
    target.add_argument("--region", default="us-east-1", help="(%(default)s)")
    target.add_argument("--access-key-id", help="else AWS_ACCESS_KEY_ID, ...")
    target.add_argument("--secret-access-key", help="else AWS_SECRET_ACCESS_KEY, ...")
    target.add_argument(
        "--group-id", default="replay", help="FIFO group of messages without one (%(default)s)"
    )
    target.add_argument(
        "--max-batch-bytes",
        type=int,
        default=DEFAULT_MAX_BATCH_BYTES,
        help="payload of one SendMessageBatch (%(default)s)",
    )
    parser.add_argument("--dry-run", action="store_true", help="select and count, send nothing")
    return parser


def select(spark: SparkSession, args: argparse.Namespace) -> DataFrame:
    """The messages to replay: the window of the queue, in (partition, offset) order
    within each input partition, with what a send needs."""
    check(args)
    options = reader_options(args, args.queue)
    stream = find_queue(options)
    say(f"{args.queue}: stream {stream.stream_id}, {stream.partitions} partition(s)")
    return read_queue(spark, options).select(
        "partition", "offset", "message_id", "group_id", "deduplication_id", "attributes", "body"
    )


def check(args: argparse.Namespace) -> None:
    """The window is a window and the queue is in the archive."""
    if args.start is not None and args.end is not None and args.start >= args.end:
        raise JobError(f"--start must be before --end ({args.start} >= {args.end})")
    find_queue(reader_options(args, args.queue))


def run(spark: SparkSession, args: argparse.Namespace) -> int:
    selected = select(spark, args)
    slices = selected.rdd.getNumPartitions()
    target = Target(
        args.to, args.endpoint_url, args.region, args.access_key_id, args.secret_access_key,
        args.group_id, args.max_batch_bytes,
    )  # fmt: skip
    if args.dry_run:
        rows = selected.count()
        say(f"dry run: {rows} message(s) in {slices} segment slice(s) would go to {args.to}")
        for row in selected.limit(5).collect():
            say(f"  partition {row.partition} offset {row.offset} message {row.message_id}")
        return OK
    with progress(spark, f"replaying into {args.to}"):
        if target.fifo:
            say("FIFO target: sending from the driver, in order")
            sent = send(target, selected.toLocalIterator(), report_every=1000)
        else:
            say(f"sending {slices} segment slice(s) in parallel")
            sent = sum(selected.rdd.mapPartitions(lambda rows: [send(target, rows)]).collect())
    say(f"replayed {sent} message(s) into {args.to}")
    return OK


def send(target: Target, rows: Iterable[Row], report_every: int = 0) -> int:
    """Sends the rows in order, in batches; returns how many were sent."""
    try:
        return _send(target, rows, report_every)
    except (BotoCoreError, ClientError) as exc:
        raise ReplayError(f"{target.queue}: {exc}") from exc


def _send(target: Target, rows: Iterable[Row], report_every: int) -> int:
    client = target.client()
    queue_url = _queue_url(client, target.queue)
    sent = 0
    for batch in _batches(rows, target):
        _send_batch(client, queue_url, batch)
        sent += len(batch)
        if report_every and sent // report_every != (sent - len(batch)) // report_every:
            say(f"  sent {sent}")
    return sent


def entry(row: Row, target: Target) -> dict[str, Any]:
    """The SendMessageBatch entry (without its Id) that replays the row."""
    try:
        body = bytes(row.body).decode()
    except UnicodeDecodeError:
        raise ReplayError(
            f"message {row.message_id} (partition {row.partition}, offset {row.offset}) has a "
            "body that is not UTF-8 text, which SQS cannot carry"
        ) from None
    message: dict[str, Any] = {"MessageBody": body}
    attributes = {}
    for name, value in (row.attributes or {}).items():
        attribute: dict[str, Any] = {"DataType": value.data_type}
        if value.string_value is not None:
            attribute["StringValue"] = value.string_value
        if value.binary_value is not None:
            attribute["BinaryValue"] = bytes(value.binary_value)
        attributes[name] = attribute
    if attributes:
        message["MessageAttributes"] = attributes
    if target.fifo:
        message["MessageGroupId"] = row.group_id or target.group_id
        message["MessageDeduplicationId"] = row.deduplication_id or row.message_id
    return message


def _batches(rows: Iterable[Row], target: Target) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    size = 0
    for row in rows:
        message = entry(row, target)
        message_size = _payload_bytes(message)
        if batch and (
            len(batch) == MAX_BATCH_ENTRIES or size + message_size > target.max_batch_bytes
        ):
            yield batch
            batch, size = [], 0
        batch.append(message)
        size += message_size
    if batch:
        yield batch


def _payload_bytes(message: dict[str, Any]) -> int:
    size = len(message["MessageBody"].encode())
    for name, value in message.get("MessageAttributes", {}).items():
        size += len(name.encode()) + len(value["DataType"].encode())
        size += len(value.get("StringValue", "").encode()) + len(value.get("BinaryValue", b""))
    return size


def _send_batch(client: Any, queue_url: str, batch: list[dict[str, Any]]) -> None:
    """Sends one batch; retries the entries the service failed (not the sender's fault)."""
    pending = {str(i): message for i, message in enumerate(batch)}
    for attempt in range(_ATTEMPTS):
        result = client.send_message_batch(
            QueueUrl=queue_url, Entries=[{"Id": i, **m} for i, m in pending.items()]
        )
        failed = result.get("Failed", [])
        refused = [f for f in failed if f.get("SenderFault")]
        if refused:
            details = "; ".join(f"{f.get('Code')}: {f.get('Message')}" for f in refused[:3])
            raise ReplayError(f"{queue_url} refused {len(refused)} message(s): {details}")
        if not failed:
            return
        pending = {f["Id"]: pending[f["Id"]] for f in failed}
        time.sleep(0.1 * 2**attempt)
    raise ReplayError(
        f"{queue_url}: {len(pending)} message(s) still failing after {_ATTEMPTS} tries"
    )


def _queue_url(client: Any, queue: str) -> str:
    if "://" in queue:
        return queue
    url: str = client.get_queue_url(QueueName=queue)["QueueUrl"]
    return url


def main(argv: Sequence[str] | None = None) -> int:
    return main_with(parser(), check, run, argv)


if __name__ == "__main__":
    sys.exit(main())
