"""Message size limits: SQS's 256 KiB default, up to 1 MiB where the deployment allows."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.conftest import RunningGateway, start_gateway

MIB = 1024 * 1024


@pytest.fixture
def big_gateway(redis_url: str, tmp_path: Path) -> Iterator[RunningGateway]:
    running = start_gateway(redis_url, tmp_path / "data", max_message_bytes=MIB)
    yield running
    running.stop()


def test_a_one_mib_message_round_trips_where_allowed(big_gateway: RunningGateway) -> None:
    sqs = big_gateway.sqs_client()
    url = sqs.create_queue(QueueName="big", Attributes={"MaximumMessageSize": str(MIB)})["QueueUrl"]
    body = "é" * (MIB // 2)  # two bytes each: exactly 1 MiB
    sent = sqs.send_message(QueueUrl=url, MessageBody=body)
    assert sent["MD5OfMessageBody"] == hashlib.md5(body.encode()).hexdigest()
    [message] = sqs.receive_message(QueueUrl=url)["Messages"]
    assert message["Body"] == body
    with pytest.raises(ClientError, match=f"shorter than {MIB} bytes"):
        sqs.send_message(QueueUrl=url, MessageBody=body + "x")


def test_the_default_queue_size_stays_256_kib(big_gateway: RunningGateway) -> None:
    sqs = big_gateway.sqs_client()
    url = sqs.create_queue(QueueName="default")["QueueUrl"]
    with pytest.raises(ClientError, match="shorter than 262144 bytes"):
        sqs.send_message(QueueUrl=url, MessageBody="x" * (262_144 + 1))


def test_a_queue_cannot_exceed_the_deployment_cap(sqs: Any) -> None:
    with pytest.raises(sqs.exceptions.InvalidAttributeValue, match="TIDEMQ_MAX_MESSAGE_BYTES"):
        sqs.create_queue(QueueName="too-big", Attributes={"MaximumMessageSize": str(MIB)})
    url = sqs.create_queue(QueueName="ok")["QueueUrl"]
    with pytest.raises(sqs.exceptions.InvalidAttributeValue):
        sqs.set_queue_attributes(QueueUrl=url, Attributes={"MaximumMessageSize": str(MIB)})
