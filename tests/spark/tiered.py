"""A TideMQ that tiers fast (the `tiering_gateway` fixture of conftest.py), messages sent
to it over the SQS API, and waiting for them to reach its archive."""

from __future__ import annotations

import time
from typing import Any

from spark.archive_reader import find_stream, read_manifests
from spark.bounds import Bounds
from spark.errors import StreamNotFound
from spark.options import parse_options
from storage_nodes.archive.stores import open_store
from tests.conftest import RunningGateway
from tidemq.stack import ArchiveOptions

# Small segments sealed within a fifth of a second: everything sent is soon archived.
TIER_FAST = ArchiveOptions(segment_bytes=4096, segment_ms=200)


def archive_url(gateway: RunningGateway) -> str:
    return (gateway.data_dir / "archive").resolve().as_uri()


def wait_until_archived(url: str, queue: str, count: int, timeout_s: float = 30) -> None:
    """Until the manifests of the queue's newest stream list `count` records."""
    options = parse_options({"path": url, "queue": queue})
    store = open_store(options.url, options.s3)
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            stream = find_stream(store, options)
            archived = sum(m.end_offset for m in read_manifests(store, stream, Bounds()).values())
        except StreamNotFound:  # no name entry yet
            archived = 0
        if archived >= count:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{archived} of {count} records of {queue} archived")
        time.sleep(0.1)


def send(
    sqs: Any, url: str, count: int, *, fifo: bool = False, first: int = 0
) -> list[dict[str, Any]]:
    """Sends messages `first` .. `first + count - 1` in batches of ten (FIFO: in three
    message groups); returns the entries sent, in order."""
    sent = []
    for start in range(first, first + count, 10):
        entries = []
        for i in range(start, min(start + 10, first + count)):
            entry: dict[str, Any] = {
                "Id": str(i),
                "MessageBody": f"order {i} " + "\u00e9" * (i % 5) + "x" * (i * 37 % 700),
                "MessageAttributes": {
                    "n": {"DataType": "Number", "StringValue": str(i)},
                    "blob": {"DataType": "Binary", "BinaryValue": bytes([i % 256]) * (i % 3 + 1)},
                },
            }
            if fifo:
                entry["MessageGroupId"] = f"g{i % 3}"
                entry["MessageDeduplicationId"] = f"d{i}"
            entries.append(entry)
        answer = sqs.send_message_batch(QueueUrl=url, Entries=entries)
        assert not answer.get("Failed"), answer
        sent += entries
    return sent
