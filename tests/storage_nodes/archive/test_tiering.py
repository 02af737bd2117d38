"""Tiering end to end, through the gateway: messages published, sealed, uploaded, dropped
from local disk, and received, redelivered and moved from the archive byte for byte; the
object store failing and coming back; the disk budget; a deleted queue's grace period."""

from __future__ import annotations

import dataclasses
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from storage_nodes.archive import layout
from storage_nodes.archive.local_store import LocalDirStore
from storage_nodes.archive.manifest import Manifest, Manifests
from storage_nodes.archive.object_store import ObjectStore
from storage_nodes.archive.stores import open_store
from tests.conftest import MakeS3Server, MotoProcess, RunningGateway, start_gateway
from tests.storage_nodes.archive.conftest import moto_options, raw_client
from tidemq.stack import ArchiveOptions

# Small segments, sealed within a fifth of a second, and nothing kept locally once tiered.
TIER_FAST = ArchiveOptions(
    segment_bytes=4096, segment_ms=200, local_retention_bytes=0, local_retention_ms=0
)


def _on_s3(options: ArchiveOptions, server: MotoProcess, bucket: str) -> ArchiveOptions:
    raw_client(moto_options(server)).create_bucket(Bucket=bucket)
    return dataclasses.replace(options, url=f"s3://{bucket}/tidemq", s3=moto_options(server))


@pytest.fixture(params=["local", "s3"])
def tiered(
    request: pytest.FixtureRequest, redis_url: str, tmp_path: Path
) -> Iterator[RunningGateway]:
    """A gateway tiering fast, to a local directory or to moto's S3 in its own process."""
    options = TIER_FAST
    if request.param == "s3":
        server: MotoProcess = request.getfixturevalue("s3_server")
        options = _on_s3(options, server, f"tiered-{os.urandom(6).hex()}")
    running = start_gateway(redis_url, tmp_path / "data", archive=options)
    yield running
    running.stop()


def _store(gateway: RunningGateway) -> ObjectStore:
    options = gateway.archive or ArchiveOptions()
    return open_store(options.url or str(gateway.data_dir / "archive"), options.s3)


def _wait_for(condition: Callable[[], bool], what: str, timeout_s: float = 15) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _stream_dir(gateway: RunningGateway) -> Path:
    [stream] = [p for p in (gateway.data_dir / "node" / "streams").iterdir() if p.is_dir()]
    return stream


def _manifest(gateway: RunningGateway) -> Manifest | None:
    manifests = Manifests(_store(gateway))
    manifest, _ = manifests.read(_stream_dir(gateway).name, 0)
    return manifest


def _local_logs(gateway: RunningGateway) -> list[Path]:
    return sorted((_stream_dir(gateway) / "0").glob("*.log"))


def _send(sqs: Any, url: str, count: int) -> dict[str, tuple[str, dict[str, Any]]]:
    """Sends `count` messages in batches of ten; message id -> (body, attributes)."""
    sent = {}
    for start in range(0, count, 10):
        entries = []
        for i in range(start, min(start + 10, count)):
            attributes = {
                "n": {"DataType": "Number", "StringValue": str(i)},
                "blob": {"DataType": "Binary", "BinaryValue": bytes([i % 256]) * (i % 7 + 1)},
            }
            body = f"message {i} " + "é" * (i % 13) + "x" * (i * 7 % 300)
            entries.append({"Id": str(i), "MessageBody": body, "MessageAttributes": attributes})
        answer = sqs.send_message_batch(QueueUrl=url, Entries=entries)
        assert not answer.get("Failed"), answer
        for entry, ok in zip(entries, answer["Successful"], strict=True):
            sent[ok["MessageId"]] = (entry["MessageBody"], entry["MessageAttributes"])
    return sent


def _receive_all(sqs: Any, url: str, count: int, **options: Any) -> list[dict[str, Any]]:
    received: list[dict[str, Any]] = []
    deadline = time.monotonic() + 30
    while len(received) < count and time.monotonic() < deadline:
        answer = sqs.receive_message(
            QueueUrl=url,
            MaxNumberOfMessages=10,
            WaitTimeSeconds=1,
            MessageAttributeNames=["All"],
            **options,
        )
        received += answer.get("Messages", [])
    return received


def _check_same(sent: dict[str, tuple[str, dict[str, Any]]], got: list[dict[str, Any]]) -> None:
    assert sorted(m["MessageId"] for m in got) == sorted(sent)
    for message in got:
        body, attributes = sent[message["MessageId"]]
        assert message["Body"] == body
        assert message["MessageAttributes"] == attributes


def _canonical(attributes: dict[str, Any]) -> str:
    return repr(sorted((name, sorted(value.items())) for name, value in attributes.items()))


def _tiered_all(gateway: RunningGateway, count: int) -> Callable[[], bool]:
    def done() -> bool:
        manifest = _manifest(gateway)
        return manifest is not None and manifest.end_offset == count

    return done


def test_messages_come_back_from_the_archive_byte_for_byte(tiered: RunningGateway) -> None:
    sqs = tiered.sqs_client()
    url = sqs.create_queue(QueueName="orders", Attributes={"VisibilityTimeout": "30"})["QueueUrl"]
    sent = _send(sqs, url, 200)
    _wait_for(_tiered_all(tiered, 200), "every message tiered (the idle tail by its age)")
    manifest = _manifest(tiered)
    assert manifest is not None
    assert len(manifest.segments) > 5
    _wait_for(lambda: len(_local_logs(tiered)) == 1, "tiered segments dropped locally")
    first_local = int(_local_logs(tiered)[0].stem)
    assert first_local == 200, "every record is archived and none is local any more"

    received = _receive_all(sqs, url, 200)
    _check_same(sent, received)
    # Redelivery of messages whose bytes are only in the archive.
    sqs.change_message_visibility_batch(
        QueueUrl=url,
        Entries=[
            {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"], "VisibilityTimeout": 0}
            for i, m in enumerate(received[:10])
        ],
    )
    again = _receive_all(sqs, url, 10, MessageSystemAttributeNames=["ApproximateReceiveCount"])
    assert {m["MessageId"] for m in again} == {m["MessageId"] for m in received[:10]}
    assert all(m["Attributes"]["ApproximateReceiveCount"] == "2" for m in again)
    _check_same({m["MessageId"]: sent[m["MessageId"]] for m in again}, again)


def test_dead_letters_move_back_from_the_archive(tiered: RunningGateway) -> None:
    sqs = tiered.sqs_client()
    dlq = sqs.create_queue(QueueName="orders-dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    source = sqs.create_queue(
        QueueName="orders",
        Attributes={
            "VisibilityTimeout": "0",
            "RedrivePolicy": f'{{"deadLetterTargetArn":"{dlq_arn}","maxReceiveCount":"1"}}',
        },
    )["QueueUrl"]
    sent = _send(sqs, source, 30)
    # Received once each (visibility 0), then dead-lettered by the next receive.
    _receive_all(sqs, source, 30)
    assert "Messages" not in sqs.receive_message(QueueUrl=source, WaitTimeSeconds=1)
    stream_dirs = sorted((tiered.data_dir / "node" / "streams").iterdir())
    manifests = Manifests(_store(tiered))

    def all_tiered() -> bool:
        ends = [manifests.read(d.name, 0)[0] for d in stream_dirs if d.is_dir()]
        return all(m is not None and m.end_offset == 30 for m in ends)

    _wait_for(all_tiered, "both queues tiered")
    task = sqs.start_message_move_task(SourceArn=dlq_arn)
    assert task["TaskHandle"]
    moved = _receive_all(sqs, source, 30, VisibilityTimeout=30)
    # A moved message is sent anew (a new message id), with the same body and attributes.
    contents = sorted((body, _canonical(attributes)) for body, attributes in sent.values())
    assert sorted((m["Body"], _canonical(m["MessageAttributes"])) for m in moved) == contents


def test_an_idle_segment_is_sealed_and_tiered_by_its_age(tiered: RunningGateway) -> None:
    sqs = tiered.sqs_client()
    url = sqs.create_queue(QueueName="quiet")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="alone")
    _wait_for(_tiered_all(tiered, 1), "the one message tiered without another append")
    descriptor = _store(tiered).get_bytes(layout.stream_descriptor(_stream_dir(tiered).name))
    assert b'"name":"quiet"' in descriptor


def test_a_failing_store_loses_nothing_and_tiering_resumes(redis_url: str, tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    archive.write_text("not a directory: the store fails until this file goes")
    options = dataclasses.replace(TIER_FAST, url=str(archive))
    gateway = start_gateway(redis_url, tmp_path / "data", archive=options)
    try:
        sqs = gateway.sqs_client()
        url = sqs.create_queue(QueueName="orders")["QueueUrl"]
        sent = _send(sqs, url, 100)
        time.sleep(1)
        assert len(_local_logs(gateway)) > 3, "local segments are kept while uploads fail"
        archive.unlink()
        manifests = Manifests(LocalDirStore(archive))
        stream = _stream_dir(gateway).name

        def caught_up() -> bool:
            manifest, _ = manifests.read(stream, 0)
            return manifest is not None and manifest.end_offset == 100

        _wait_for(caught_up, "tiering to resume on its own", timeout_s=60)
        _wait_for(lambda: len(_local_logs(gateway)) == 1, "local copies dropped")
        _check_same(sent, _receive_all(sqs, url, 100))
    finally:
        gateway.stop()


@pytest.mark.slow
def test_an_s3_store_stopped_during_tiering_loses_nothing(
    redis_url: str, tmp_path: Path, make_s3_server: MakeS3Server
) -> None:
    """moto's process is frozen (SIGSTOP): connections hang, as with a store gone away,
    and its data stays for when it is let go again (SIGCONT)."""
    server = make_s3_server()
    options = _on_s3(TIER_FAST, server, "outage")
    gateway = start_gateway(redis_url, tmp_path / "data", archive=options)
    try:
        sqs = gateway.sqs_client()
        url = sqs.create_queue(QueueName="orders")["QueueUrl"]
        first = _send(sqs, url, 30)
        _wait_for(_tiered_all(gateway, 30), "the first messages tiered")
        os.kill(server.process.pid, signal.SIGSTOP)
        try:
            more = _send(sqs, url, 70)
            time.sleep(2)
            assert len(_local_logs(gateway)) > 3, "local segments are kept while S3 is away"
        finally:
            os.kill(server.process.pid, signal.SIGCONT)
        _wait_for(_tiered_all(gateway, 100), "tiering to resume on its own", timeout_s=90)
        _wait_for(lambda: len(_local_logs(gateway)) == 1, "local copies dropped")
        _check_same({**first, **more}, _receive_all(sqs, url, 100))
    finally:
        gateway.stop()


def test_the_disk_budget_turns_publishes_into_503_and_back(redis_url: str, tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    archive.write_text("down")
    options = dataclasses.replace(TIER_FAST, url=str(archive), disk_budget_bytes=16 * 1024)
    gateway = start_gateway(redis_url, tmp_path / "data", archive=options)
    try:
        sqs = gateway.sqs_client()
        url = sqs.create_queue(QueueName="orders")["QueueUrl"]
        refused = None
        accepted = []
        for i in range(400):
            try:
                sqs.send_message(QueueUrl=url, MessageBody=f"m{i} " + "x" * 200)
                accepted.append(f"m{i} " + "x" * 200)
            except sqs.exceptions.ClientError as exc:
                refused = exc
                break
        assert refused is not None, "publishes past the budget are refused"
        assert refused.response["ResponseMetadata"]["HTTPStatusCode"] == 503
        assert refused.response["Error"]["Code"] == "ServiceUnavailable"
        assert "disk budget" in refused.response["Error"]["Message"]
        ready = httpx.get(f"{gateway.url}/readyz")
        assert ready.status_code == 503
        assert "disk budget" in ready.json()["reason"]
        archive.unlink()
        deadline = time.monotonic() + 60
        while True:
            try:
                sqs.send_message(QueueUrl=url, MessageBody="after")
                break
            except sqs.exceptions.ClientError:
                assert time.monotonic() < deadline, "publishes resume once tiering frees space"
                time.sleep(0.2)
        bodies = [m["Body"] for m in _receive_all(sqs, url, len(accepted) + 1)]
        assert sorted(bodies) == sorted([*accepted, "after"])
        assert httpx.get(f"{gateway.url}/readyz").status_code == 200
    finally:
        gateway.stop()


def test_a_deleted_queue_keeps_its_archive_for_the_grace_period(
    redis_url: str, tmp_path: Path
) -> None:
    options = ArchiveOptions(
        segment_bytes=4096, segment_ms=200, local_retention_ms=0, delete_grace_ms=1_500
    )
    gateway = start_gateway(redis_url, tmp_path / "data", archive=options)
    try:
        sqs = gateway.sqs_client()
        url = sqs.create_queue(QueueName="orders")["QueueUrl"]
        _send(sqs, url, 40)
        stream = _stream_dir(gateway).name
        store = LocalDirStore(gateway.data_dir / "archive")
        _wait_for(
            lambda: (
                (Manifests(store).read(stream, 0)[0] or Manifest(stream, 0, 0)).end_offset == 40
            ),
            "tiered",
        )
        sqs.delete_queue(QueueUrl=url)
        _wait_for(lambda: store.head(layout.deletion_marker(stream)) is not None, "the marker")
        assert store.head(layout.manifest(stream, 0)) is not None, "kept during the grace"
        _wait_for(lambda: not list(store.list(layout.stream_prefix(stream))), "removal")
        assert not list(store.list(layout.NAMES + "/"))
    finally:
        gateway.stop()
