"""The SQS happy path through the real layers: boto3 -> gateway -> log on disk + Redis."""

from __future__ import annotations

import hashlib
import threading
import time
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.conftest import RunningGateway


def test_create_send_receive_delete(sqs: Any, gateway: RunningGateway) -> None:
    url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    assert url == f"{gateway.url}/123456789012/orders"

    body = "héllo, TideMQ"
    sent = sqs.send_message(QueueUrl=url, MessageBody=body)
    assert sent["MD5OfMessageBody"] == hashlib.md5(body.encode()).hexdigest()

    [message] = sqs.receive_message(QueueUrl=url, AttributeNames=["All"])["Messages"]
    assert message["MessageId"] == sent["MessageId"]
    assert message["Body"] == body
    assert message["MD5OfBody"] == sent["MD5OfMessageBody"]
    assert message["Attributes"]["ApproximateReceiveCount"] == "1"

    sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    assert "Messages" not in sqs.receive_message(QueueUrl=url, VisibilityTimeout=0)


def test_the_body_is_in_a_partition_log_on_disk(sqs: Any, gateway: RunningGateway) -> None:
    url = sqs.create_queue(QueueName="on-disk")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="find me on disk")
    logs = list((gateway.data_dir / "node" / "streams").glob("*/0/*.log"))
    assert len(logs) == 1
    assert logs[0].name == f"{0:020d}.log"
    assert b"find me on disk" in logs[0].read_bytes()


def test_an_unreceived_message_is_redelivered_after_its_visibility_timeout(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="retry")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="again")
    [first] = sqs.receive_message(QueueUrl=url, VisibilityTimeout=1)["Messages"]
    # The long poll is woken by the timer falling due, a second from now.
    [second] = sqs.receive_message(
        QueueUrl=url, WaitTimeSeconds=5, AttributeNames=["ApproximateReceiveCount"]
    )["Messages"]
    assert second["MessageId"] == first["MessageId"]
    assert second["Attributes"]["ApproximateReceiveCount"] == "2"
    assert second["ReceiptHandle"] != first["ReceiptHandle"]

    # The first receipt is stale: deleting with it succeeds but keeps the message.
    sqs.delete_message(QueueUrl=url, ReceiptHandle=first["ReceiptHandle"])
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert attributes["ApproximateNumberOfMessagesNotVisible"] == "1"
    sqs.delete_message(QueueUrl=url, ReceiptHandle=second["ReceiptHandle"])
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert attributes["ApproximateNumberOfMessagesNotVisible"] == "0"
    assert attributes["ApproximateNumberOfMessages"] == "0"


def test_a_long_poll_returns_as_soon_as_a_message_is_sent(
    sqs: Any, gateway: RunningGateway
) -> None:
    url = sqs.create_queue(QueueName="long-poll")["QueueUrl"]
    result: dict[str, Any] = {}
    receiver = threading.Thread(
        target=lambda: result.update(sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20))
    )
    receiver.start()
    time.sleep(0.5)  # let the long poll start waiting; otherwise this checks nothing
    gateway.sqs_client().send_message(QueueUrl=url, MessageBody="wake up")
    receiver.join(timeout=10)  # woken, not ended by its 20 s wait
    assert not receiver.is_alive()
    assert [m["Body"] for m in result["Messages"]] == ["wake up"]


def test_an_unknown_queue_is_queue_does_not_exist(sqs: Any, gateway: RunningGateway) -> None:
    with pytest.raises(sqs.exceptions.QueueDoesNotExist) as caught:
        sqs.get_queue_url(QueueName="missing")
    error = caught.value.response["Error"]
    assert error["Code"] == "AWS.SimpleQueueService.NonExistentQueue"
    assert error["Message"] == "The specified queue does not exist."
    assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400

    with pytest.raises(sqs.exceptions.QueueDoesNotExist):
        sqs.send_message(QueueUrl=f"{gateway.url}/123456789012/missing", MessageBody="x")
    with pytest.raises(sqs.exceptions.QueueDoesNotExist):
        sqs.receive_message(QueueUrl="missing")


def test_message_attributes_round_trip_with_their_md5(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="attrs")["QueueUrl"]
    attributes = {
        "colour": {"DataType": "String", "StringValue": "blue"},
        "count": {"DataType": "Number", "StringValue": "42"},
        "raw": {"DataType": "Binary", "BinaryValue": b"\x00\x01\xff"},
        "kind": {"DataType": "String.custom", "StringValue": "x"},
    }
    sent = sqs.send_message(QueueUrl=url, MessageBody="b", MessageAttributes=attributes)
    [message] = sqs.receive_message(QueueUrl=url, MessageAttributeNames=["All"])["Messages"]
    assert message["MessageAttributes"] == attributes
    assert message["MD5OfMessageAttributes"] == sent["MD5OfMessageAttributes"]
    # The digest AWS documents for these attributes, computed independently here.
    assert sent["MD5OfMessageAttributes"] == _aws_attribute_md5(attributes)


def test_queues_are_listed_and_deleted(sqs: Any) -> None:
    for name in ["q-b", "q-a", "other"]:
        sqs.create_queue(QueueName=name)
    urls = sqs.list_queues(QueueNamePrefix="q-")["QueueUrls"]
    assert [u.rsplit("/", 1)[1] for u in urls] == ["q-a", "q-b"]
    sqs.delete_queue(QueueUrl=urls[0])
    with pytest.raises(ClientError):
        sqs.get_queue_url(QueueName="q-a")


def _aws_attribute_md5(attributes: dict[str, dict[str, Any]]) -> str:
    digest = hashlib.md5()
    for name in sorted(attributes):
        value = attributes[name]
        for part in (name.encode(), value["DataType"].encode()):
            digest.update(len(part).to_bytes(4, "big") + part)
        if "BinaryValue" in value:
            raw = value["BinaryValue"]
            digest.update(b"\x02" + len(raw).to_bytes(4, "big") + raw)
        else:
            raw = value["StringValue"].encode()
            digest.update(b"\x01" + len(raw).to_bytes(4, "big") + raw)
    return digest.hexdigest()
