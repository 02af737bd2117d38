"""`/metrics`: scraped over HTTP from a real gateway and read with prometheus_client's own
parser, after real sends, receives, deletes and dead-letter moves.

The counters are the process's (every gateway a test starts counts into them), so each
test uses queue names of its own, and reads the other metrics as differences.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from control_plane.clock import ManualClock
from storage_nodes.archive.manifest import Manifest, Manifests
from storage_nodes.archive.stores import S3Options, open_store
from tests.conftest import TEST_ACCOUNT_ID, RunningGateway, TidemqUp, start_gateway
from tidemq.stack import ArchiveOptions

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(url: str, token: str | None = None) -> Samples:
    request = urllib.request.Request(url + "/metrics")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200
        assert response.headers["content-type"].startswith("text/plain")
        text = response.read().decode()
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float | None:
    return samples.get((name, frozenset(labels.items())))


def queue_value(samples: Samples, name: str, queue: str) -> float | None:
    return value(samples, name, account=TEST_ACCOUNT_ID, queue=queue)


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum over every series of `name` that has `labels` (and any others)."""
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and wanted <= ls)


@pytest.fixture
def clocked(redis_url: str, tmp_path: Path) -> Iterator[tuple[RunningGateway, ManualClock]]:
    clock = ManualClock()
    running = start_gateway(redis_url, tmp_path / "data", clock=clock)
    yield running, clock
    running.stop()


def test_sends_receives_deletes_and_a_dead_letter_move_are_counted(
    gateway: RunningGateway,
) -> None:
    sqs = gateway.sqs_client()
    name = f"m-{uuid.uuid4().hex[:8]}"
    dead_url = sqs.create_queue(QueueName=f"{name}-dlq")["QueueUrl"]
    dead_arn = sqs.get_queue_attributes(QueueUrl=dead_url, AttributeNames=["QueueArn"])[
        "Attributes"
    ]["QueueArn"]
    redrive = json.dumps({"deadLetterTargetArn": dead_arn, "maxReceiveCount": "1"})
    url = sqs.create_queue(QueueName=name, Attributes={"RedrivePolicy": redrive})["QueueUrl"]
    before = scrape(gateway.url)

    for body in ("a" * 10, "b" * 20, "c" * 30):
        sqs.send_message(QueueUrl=url, MessageBody=body)
    received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=0)
    assert len(received["Messages"]) == 3
    first = received["Messages"][0]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=first["ReceiptHandle"])
    # Each of the other two was received once already: the next claim dead-letters them.
    assert "Messages" not in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)

    after = scrape(gateway.url)
    counted = {
        metric: queue_value(after, metric, name)
        for metric in (
            "tidemq_queue_sent_messages_total",
            "tidemq_queue_sent_bytes_total",
            "tidemq_queue_received_messages_total",
            "tidemq_queue_received_bytes_total",
            "tidemq_queue_deleted_messages_total",
            "tidemq_queue_dead_lettered_messages_total",
            "tidemq_queue_expired_messages_total",
        )
    }
    assert counted == {
        "tidemq_queue_sent_messages_total": 3,
        "tidemq_queue_sent_bytes_total": 60,
        "tidemq_queue_received_messages_total": 3,
        "tidemq_queue_received_bytes_total": 60,
        "tidemq_queue_deleted_messages_total": 1,
        "tidemq_queue_dead_lettered_messages_total": 2,
        "tidemq_queue_expired_messages_total": 0,
    }
    # The census, read at the scrape: the two dead letters wait in the dead-letter queue.
    assert queue_value(after, "tidemq_queue_visible_messages", f"{name}-dlq") == 2
    assert queue_value(after, "tidemq_queue_visible_messages", name) == 0
    assert queue_value(after, "tidemq_queue_in_flight_messages", name) == 0
    assert queue_value(after, "tidemq_queue_oldest_message_age_seconds", name) is None
    assert value(after, "tidemq_census_up") == 1

    def requests(action: str) -> float:
        name = "tidemq_request_duration_seconds_count"
        labels = {"api": "sqs", "action": action, "outcome": "ok"}
        return total(after, name, **labels) - total(before, name, **labels)

    assert requests("SendMessage") == 3
    assert requests("ReceiveMessage") == 2
    assert requests("DeleteMessage") == 1
    scripts = "tidemq_redis_script_duration_seconds_count"
    assert total(after, scripts, script="claim") - total(before, scripts, script="claim") >= 2
    syncs = "tidemq_fsync_duration_seconds_count"
    assert total(after, syncs) - total(before, syncs) >= 3  # one send after another
    rounds = "tidemq_fsync_group_commit_appends_count"
    assert total(after, rounds) - total(before, rounds) >= 3


def test_depth_and_the_age_of_the_oldest_message(
    clocked: tuple[RunningGateway, ManualClock],
) -> None:
    gateway, clock = clocked
    sqs = gateway.sqs_client()
    name = f"depth-{uuid.uuid4().hex[:8]}"
    url = sqs.create_queue(QueueName=name)["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="first")
    clock.advance(5_000)
    sqs.send_message(QueueUrl=url, MessageBody="second")
    sqs.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=60)
    clock.advance(2_500)
    [message] = sqs.receive_message(QueueUrl=url, VisibilityTimeout=30)["Messages"]
    assert message["Body"] == "first"

    samples = scrape(gateway.url)
    assert queue_value(samples, "tidemq_queue_visible_messages", name) == 1
    assert queue_value(samples, "tidemq_queue_in_flight_messages", name) == 1
    assert queue_value(samples, "tidemq_queue_delayed_messages", name) == 1
    # The first message is in flight, not deleted: still the oldest.
    assert queue_value(samples, "tidemq_queue_oldest_message_age_seconds", name) == 7.5

    sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    samples = scrape(gateway.url)
    assert queue_value(samples, "tidemq_queue_oldest_message_age_seconds", name) == 2.5


def test_topics_count_publishes_and_subscriptions_show_their_lag(
    gateway: RunningGateway,
) -> None:
    sns, sqs = gateway.sns_client(), gateway.sqs_client()
    name = f"t-{uuid.uuid4().hex[:8]}"
    topic_arn = sns.create_topic(Name=name)["TopicArn"]
    queue_url = sqs.create_queue(QueueName=f"{name}-q")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])[
        "Attributes"
    ]["QueueArn"]
    subscription_arn = sns.subscribe(TopicArn=topic_arn, Protocol="sqs", Endpoint=queue_arn)[
        "SubscriptionArn"
    ]
    for body in ("one", "three"):
        sns.publish(TopicArn=topic_arn, Message=body)
    # Delivered by the dispatcher behind the publishes: wait for both in the queue.
    got = 0
    while got < 2:
        got += len(sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=5).get("Messages", []))

    samples = scrape(gateway.url)
    topic = {"account": TEST_ACCOUNT_ID, "topic": name}
    assert value(samples, "tidemq_topic_published_messages_total", **topic) == 2
    assert value(samples, "tidemq_topic_published_bytes_total", **topic) == 8
    lag = value(
        samples,
        "tidemq_subscription_behind_messages",
        **topic,
        subscription=subscription_arn.rsplit(":", 1)[1],
        protocol="sqs",
    )
    assert lag == 0


def test_the_census_is_capped_and_says_how_much_it_left_out(redis_url: str, tmp_path: Path) -> None:
    running = start_gateway(redis_url, tmp_path / "data", metrics_max_queues=2)
    try:
        sqs = running.sqs_client()
        for name in ("cap-a", "cap-b", "cap-c"):
            sqs.create_queue(QueueName=name)
        samples = scrape(running.url)
    finally:
        running.stop()
    listed = {
        dict(labels)["queue"]
        for (name, labels) in samples
        if name == "tidemq_queue_visible_messages"
    }
    assert listed == {"cap-a", "cap-b"}
    assert value(samples, "tidemq_census_left_out", kind="queue") == 1


def test_a_metrics_token_is_asked_for_when_one_is_set(redis_url: str, tmp_path: Path) -> None:
    running = start_gateway(redis_url, tmp_path / "data", metrics_token="scrape-me")
    try:
        for wrong in (None, "not-it"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                scrape(running.url, wrong)
            assert refused.value.code == 401
        assert value(scrape(running.url, "scrape-me"), "tidemq_census_up") == 1
    finally:
        running.stop()


_OTHER_PROCESS = """
import sys
from gateway import metrics
metrics.queues.of(sys.argv[1], sys.argv[2]).sent.inc(5)
metrics.WS_CONNECTIONS.inc(3)
metrics.process_stopped()  # as a gateway's lifespan does on its way out
"""


def test_several_processes_add_up_in_multiprocess_mode(tidemq_up: TidemqUp, tmp_path: Path) -> None:
    directory = tmp_path / "prometheus"
    directory.mkdir()
    env = {"PROMETHEUS_MULTIPROC_DIR": str(directory)}
    server = tidemq_up(settings=env)
    sqs = server.sqs_client()
    url = sqs.create_queue(QueueName="shared")["QueueUrl"]
    for body in ("x", "y"):
        sqs.send_message(QueueUrl=url, MessageBody=body)
    # Another gateway process writing into the same directory, as a second worker would.
    subprocess.run(
        [sys.executable, "-c", _OTHER_PROCESS, TEST_ACCOUNT_ID, "shared"],
        env={**os.environ, **env},
        check=True,
        timeout=60,
    )
    samples = scrape(server.endpoint)
    assert queue_value(samples, "tidemq_queue_sent_messages_total", "shared") == 7
    assert queue_value(samples, "tidemq_queue_visible_messages", "shared") == 2
    # Its counter stays; its live gauge went with it.
    assert value(samples, "tidemq_websocket_connections") == 0


def test_tiering_counts_what_it_uploads_and_how_far_behind_it_is(
    redis_url: str, tmp_path: Path
) -> None:
    # Small segments sealed within a fifth of a second (tests/storage_nodes/archive).
    options = ArchiveOptions(segment_bytes=4096, segment_ms=200)
    running = start_gateway(redis_url, tmp_path / "data", archive=options)
    try:
        before = scrape(running.url)
        sqs = running.sqs_client()
        url = sqs.create_queue(QueueName="tiered")["QueueUrl"]
        for start in range(0, 40, 10):
            entries = [{"Id": str(i), "MessageBody": "t" * 500} for i in range(start, start + 10)]
            sqs.send_message_batch(QueueUrl=url, Entries=entries)
        [stream] = (tmp_path / "data" / "node" / "streams").iterdir()
        manifests = Manifests(open_store(str(tmp_path / "data" / "archive"), S3Options()))

        def archived() -> Manifest | None:
            manifest, _ = manifests.read(stream.name, 0)
            return manifest if manifest is not None and manifest.end_offset == 40 else None

        deadline = time.monotonic() + 30
        while (manifest := archived()) is None or value(
            after := scrape(running.url), "tidemq_tiering_lag_records"
        ):
            assert time.monotonic() < deadline, "the log was not tiered"
            time.sleep(0.1)
    finally:
        running.stop()

    def grew(name: str) -> float:
        return total(after, name) - total(before, name)

    assert grew("tidemq_tiering_uploaded_bytes_total") == manifest.total_bytes
    assert grew("tidemq_tiering_uploaded_segments_total") == len(manifest.segments)
    assert value(after, "tidemq_tiering_pending_bytes") == 0
    assert value(after, "tidemq_tiering_lag_seconds") == 0
