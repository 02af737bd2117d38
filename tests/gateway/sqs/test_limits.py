"""Message size limits: SQS's 1 MiB, the default and the maximum MaximumMessageSize since
2025; a deployment may cap every queue lower (TIDEMQ_MAX_MESSAGE_BYTES)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.conftest import RunningGateway, start_gateway

MIB = 1024 * 1024
KIB_256 = 256 * 1024


@pytest.fixture
def capped_gateway(redis_url: str, tmp_path: Path) -> Iterator[RunningGateway]:
    running = start_gateway(redis_url, tmp_path / "data", max_message_bytes=KIB_256)
    yield running
    running.stop()


def _error(caught: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    error = caught.value.response["Error"]
    return error["Code"], error["Message"]


def test_a_new_queue_takes_messages_of_1_mib_by_default(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="default")["QueueUrl"]
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["MaximumMessageSize"])
    assert attributes["Attributes"] == {"MaximumMessageSize": "1048576"}
    body = "é" * (MIB // 2)  # two bytes each: exactly 1 MiB
    sent = sqs.send_message(QueueUrl=url, MessageBody=body)
    assert sent["MD5OfMessageBody"] == hashlib.md5(body.encode()).hexdigest()
    [message] = sqs.receive_message(QueueUrl=url)["Messages"]
    assert message["Body"] == body
    with pytest.raises(ClientError) as caught:
        sqs.send_message(QueueUrl=url, MessageBody=body + "x")
    assert _error(caught) == (
        "InvalidParameterValue",
        "One or more parameters are invalid. Reason: Message must be shorter than 1048576 bytes.",
    )


def test_body_and_attributes_together_count_against_1_mib(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="attrs")["QueueUrl"]
    attribute = {"a": {"DataType": "String", "StringValue": "v"}}  # 1 + 6 + 1 bytes
    sqs.send_message(QueueUrl=url, MessageBody="x" * (MIB - 8), MessageAttributes=attribute)
    with pytest.raises(ClientError, match="shorter than 1048576 bytes"):
        sqs.send_message(QueueUrl=url, MessageBody="x" * (MIB - 7), MessageAttributes=attribute)


def test_a_batch_of_up_to_1_mib_is_sent_and_a_longer_one_refused(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="batch")["QueueUrl"]
    entries = [{"Id": f"e{i}", "MessageBody": "x" * (MIB // 4)} for i in range(4)]
    result = sqs.send_message_batch(QueueUrl=url, Entries=entries)
    assert [s["Id"] for s in result["Successful"]] == ["e0", "e1", "e2", "e3"]
    assert result["Failed"] == []
    entries.append({"Id": "e4", "MessageBody": "y"})
    with pytest.raises(sqs.exceptions.BatchRequestTooLong) as caught:
        sqs.send_message_batch(QueueUrl=url, Entries=entries)
    assert _error(caught) == (
        "AWS.SimpleQueueService.BatchRequestTooLong",
        f"Batch requests cannot be longer than 1048576 bytes. You have sent {MIB + 1} bytes.",
    )


def test_maximum_message_size_ranges_from_1_kib_to_1_mib(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="ranged", Attributes={"MaximumMessageSize": "1024"})[
        "QueueUrl"
    ]
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"MaximumMessageSize": str(MIB)})
    for value in ("1023", str(MIB + 1)):
        with pytest.raises(ClientError) as caught:
            sqs.set_queue_attributes(QueueUrl=url, Attributes={"MaximumMessageSize": value})
        assert _error(caught) == (
            "InvalidAttributeValue",
            "Invalid value for the parameter MaximumMessageSize.",
        )
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["MaximumMessageSize"])
    assert attributes["Attributes"] == {"MaximumMessageSize": "1048576"}


def test_a_queue_cannot_exceed_a_deployment_cap(capped_gateway: RunningGateway) -> None:
    sqs = capped_gateway.sqs_client()
    with pytest.raises(sqs.exceptions.InvalidAttributeValue, match="TIDEMQ_MAX_MESSAGE_BYTES"):
        sqs.create_queue(QueueName="too-big", Attributes={"MaximumMessageSize": str(MIB)})
    url = sqs.create_queue(QueueName="ok")["QueueUrl"]
    with pytest.raises(sqs.exceptions.InvalidAttributeValue):
        sqs.set_queue_attributes(QueueUrl=url, Attributes={"MaximumMessageSize": str(MIB)})
    # A queue of the default size takes what the deployment allows.
    sqs.send_message(QueueUrl=url, MessageBody="x" * KIB_256)
    with pytest.raises(ClientError, match=f"shorter than {KIB_256} bytes"):
        sqs.send_message(QueueUrl=url, MessageBody="x" * (KIB_256 + 1))


def test_a_deployment_cap_is_not_bypassed_with_spaces(capped_gateway: RunningGateway) -> None:
    # Queue attributes take spaces around their digits; the cap on MaximumMessageSize
    # reads the number the same way.
    sqs = capped_gateway.sqs_client()
    with pytest.raises(sqs.exceptions.InvalidAttributeValue, match="TIDEMQ_MAX_MESSAGE_BYTES"):
        sqs.create_queue(QueueName="never", Attributes={"MaximumMessageSize": " 1048576"})
    assert sqs.list_queues().get("QueueUrls", []) == []
