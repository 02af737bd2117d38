"""Delays, redrive to a dead-letter queue and retention, end to end through boto3."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from control_plane.clock import ManualClock
from tests.conftest import RunningGateway, start_gateway

ACCOUNT = "123456789012"


def test_a_delayed_message_waits_its_delay(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="delayed")["QueueUrl"]
    sent_at = time.monotonic()
    sqs.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=1)
    sqs.send_message(QueueUrl=url, MessageBody="now")
    [now] = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert now["Body"] == "now"
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert attributes["ApproximateNumberOfMessagesDelayed"] == "1"
    # The long poll is woken when the delay ends, not by polling.
    [later] = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=10)["Messages"]
    assert later["Body"] == "later"
    assert time.monotonic() - sent_at >= 1.0


def test_the_queue_default_delay_applies_unless_the_message_sets_one(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="slow", Attributes={"DelaySeconds": "900"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="default")
    sqs.send_message(QueueUrl=url, MessageBody="immediate", DelaySeconds=0)
    messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in messages] == ["immediate"]


def test_a_message_received_too_often_moves_to_the_dead_letter_queue(sqs: Any) -> None:
    dlq = sqs.create_queue(QueueName="dlq")["QueueUrl"]
    policy = {"deadLetterTargetArn": f"arn:aws:sqs:us-east-1:{ACCOUNT}:dlq", "maxReceiveCount": 2}
    src = sqs.create_queue(QueueName="src", Attributes={"RedrivePolicy": json.dumps(policy)})[
        "QueueUrl"
    ]
    attributes = {"k": {"DataType": "String", "StringValue": "v"}}
    sent = sqs.send_message(QueueUrl=src, MessageBody="poison", MessageAttributes=attributes)
    for _ in range(2):
        [message] = sqs.receive_message(QueueUrl=src, VisibilityTimeout=0)["Messages"]
        assert message["Body"] == "poison"
    assert "Messages" not in sqs.receive_message(QueueUrl=src)

    [dead] = sqs.receive_message(
        QueueUrl=dlq, AttributeNames=["All"], MessageAttributeNames=["All"]
    )["Messages"]
    assert (dead["MessageId"], dead["Body"]) == (sent["MessageId"], "poison")
    assert dead["MessageAttributes"] == attributes
    assert dead["Attributes"]["DeadLetterQueueSourceArn"] == f"arn:aws:sqs:us-east-1:{ACCOUNT}:src"
    assert dead["Attributes"]["ApproximateReceiveCount"] == "1"


@pytest.fixture
def clocked_gateway(redis_url: str, tmp_path: Path) -> Iterator[tuple[RunningGateway, ManualClock]]:
    clock = ManualClock()
    running = start_gateway(redis_url, tmp_path / "data", clock=clock)
    yield running, clock
    running.stop()


def test_messages_older_than_the_retention_period_are_dropped(
    clocked_gateway: tuple[RunningGateway, ManualClock],
) -> None:
    gateway, clock = clocked_gateway
    sqs = gateway.sqs_client()
    url = sqs.create_queue(QueueName="brief", Attributes={"MessageRetentionPeriod": "60"})[
        "QueueUrl"
    ]
    sqs.send_message(QueueUrl=url, MessageBody="old")
    clock.advance(59_999)
    sqs.send_message(QueueUrl=url, MessageBody="young")
    clock.advance(1)
    messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in messages] == ["young"]
