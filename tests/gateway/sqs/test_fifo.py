"""FIFO queues through boto3: order per group, deduplication, sequence numbers, errors."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from botocore.exceptions import ClientError


def _fifo(sqs: Any, name: str = "orders.fifo", **attributes: str) -> str:
    return str(
        sqs.create_queue(QueueName=name, Attributes={"FifoQueue": "true", **attributes})["QueueUrl"]
    )


def test_each_group_is_delivered_in_order_one_batch_at_a_time(sqs: Any) -> None:
    url = _fifo(sqs)
    for i in range(3):
        for group in ("a", "b"):
            sqs.send_message(
                QueueUrl=url,
                MessageBody=f"{group}{i}",
                MessageGroupId=group,
                MessageDeduplicationId=f"{group}-{i}",
            )
    first = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=2, AttributeNames=["All"])
    bodies = [m["Body"] for m in first["Messages"]]
    assert bodies == ["a0", "a1"]  # the oldest group, in order
    assert first["Messages"][0]["Attributes"]["MessageGroupId"] == "a"
    second = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in second] == ["b0", "b1", "b2"]  # a is locked while in flight
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    sqs.delete_message_batch(
        QueueUrl=url,
        Entries=[
            {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]}
            for i, m in enumerate(first["Messages"])
        ],
    )
    [rest] = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert rest["Body"] == "a2"


def test_a_duplicate_send_returns_the_first_message(sqs: Any) -> None:
    url = _fifo(sqs, ContentBasedDeduplication="true")
    first = sqs.send_message(QueueUrl=url, MessageBody="same", MessageGroupId="g")
    again = sqs.send_message(QueueUrl=url, MessageBody="same", MessageGroupId="g")
    explicit = sqs.send_message(
        QueueUrl=url, MessageBody="same", MessageGroupId="g", MessageDeduplicationId="other"
    )
    assert (again["MessageId"], again["SequenceNumber"]) == (
        first["MessageId"],
        first["SequenceNumber"],
    )
    assert explicit["MessageId"] != first["MessageId"]
    assert explicit["SequenceNumber"] > first["SequenceNumber"]
    messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert [m["MessageId"] for m in messages] == [first["MessageId"], explicit["MessageId"]]


def test_fifo_attributes_are_reported(sqs: Any) -> None:
    url = _fifo(sqs, DeduplicationScope="messageGroup", FifoThroughputLimit="perMessageGroupId")
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert attributes["FifoQueue"] == "true"
    assert attributes["ContentBasedDeduplication"] == "false"
    assert attributes["DeduplicationScope"] == "messageGroup"
    assert attributes["FifoThroughputLimit"] == "perMessageGroupId"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"MessageBody": "x"}, "MessageGroupId"),
        ({"MessageBody": "x", "MessageGroupId": "g"}, "ContentBasedDeduplication"),
        (
            {
                "MessageBody": "x",
                "MessageGroupId": "g",
                "MessageDeduplicationId": "d",
                "DelaySeconds": 5,
            },
            "not valid for this queue type",
        ),
        (
            {"MessageBody": "x", "MessageGroupId": "bad group", "MessageDeduplicationId": "d"},
            "MessageGroupId",
        ),
    ],
)
def test_bad_fifo_sends_are_refused(sqs: Any, params: dict[str, Any], message: str) -> None:
    url = _fifo(sqs)
    with pytest.raises(ClientError, match=message):
        sqs.send_message(QueueUrl=url, **params)
    assert "Messages" not in sqs.receive_message(QueueUrl=url)


def test_queue_type_and_name_must_agree(sqs: Any) -> None:
    with pytest.raises(ClientError, match=r"must end with \.fifo"):
        sqs.create_queue(QueueName="plain", Attributes={"FifoQueue": "true"})
    # A ".fifo" name for a standard queue breaks the standard rule, in SQS's words.
    with pytest.raises(ClientError, match=r"hyphens, or underscores\. 1 to 80 in length"):
        sqs.create_queue(QueueName="named.fifo")
    url = sqs.create_queue(QueueName="standard")["QueueUrl"]
    with pytest.raises(ClientError, match="not valid for this queue type"):
        sqs.send_message(QueueUrl=url, MessageBody="x", MessageDeduplicationId="d")
    with pytest.raises(sqs.exceptions.InvalidAttributeName):
        sqs.create_queue(QueueName="std2", Attributes={"ContentBasedDeduplication": "true"})


def test_a_long_poll_is_woken_when_its_group_is_unlocked(sqs: Any) -> None:
    url = _fifo(sqs, ContentBasedDeduplication="true")
    for body in ("first", "second"):
        sqs.send_message(QueueUrl=url, MessageBody=body, MessageGroupId="g")
    [first] = sqs.receive_message(QueueUrl=url, VisibilityTimeout=60)["Messages"]
    result: dict[str, Any] = {}
    waiting = threading.Thread(
        target=lambda: result.update(sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20))
    )
    waiting.start()
    time.sleep(0.5)  # let the long poll start waiting; otherwise this checks nothing
    sqs.delete_message(QueueUrl=url, ReceiptHandle=first["ReceiptHandle"])
    waiting.join(timeout=10)  # woken, not ended by its 20 s wait
    assert not waiting.is_alive()
    assert [m["Body"] for m in result["Messages"]] == ["second"]


def test_a_zero_delay_is_accepted_on_fifo_sends_and_batch_entries(sqs: Any) -> None:
    url = _fifo(sqs)
    sent = sqs.send_message(
        QueueUrl=url,
        MessageBody="one",
        MessageGroupId="g",
        MessageDeduplicationId="1",
        DelaySeconds=0,
    )
    assert sent["SequenceNumber"]
    result = sqs.send_message_batch(
        QueueUrl=url,
        Entries=[
            {
                "Id": "a",
                "MessageBody": "two",
                "MessageGroupId": "g",
                "MessageDeduplicationId": "2",
                "DelaySeconds": 0,
            },
            {
                "Id": "b",
                "MessageBody": "three",
                "MessageGroupId": "g",
                "MessageDeduplicationId": "3",
                "DelaySeconds": 1,
            },
        ],
    )
    assert [s["Id"] for s in result["Successful"]] == ["a"]
    assert result["Failed"] == [
        {
            "Id": "b",
            "SenderFault": True,
            "Code": "InvalidParameterValue",
            "Message": "Value 1 for parameter DelaySeconds is invalid. Reason: The request "
            "include parameter that is not valid for this queue type.",
        }
    ]
    messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in messages] == ["one", "two"]


def test_batch_entries_without_fifo_ids_fail_on_their_own(sqs: Any) -> None:
    url = _fifo(sqs)
    result = sqs.send_message_batch(
        QueueUrl=url,
        Entries=[
            {"Id": "ok", "MessageBody": "x", "MessageGroupId": "g", "MessageDeduplicationId": "d"},
            {"Id": "nogroup", "MessageBody": "x", "MessageDeduplicationId": "e"},
            {"Id": "nodedup", "MessageBody": "x", "MessageGroupId": "g"},
        ],
    )
    assert [s["Id"] for s in result["Successful"]] == ["ok"]
    assert result["Failed"] == [
        {
            "Id": "nogroup",
            "SenderFault": True,
            "Code": "MissingParameter",
            "Message": "The request must contain the parameter MessageGroupId.",
        },
        {
            "Id": "nodedup",
            "SenderFault": True,
            "Code": "InvalidParameterValue",
            "Message": "The queue should either have ContentBasedDeduplication enabled or "
            "MessageDeduplicationId provided explicitly",
        },
    ]
    [message] = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert message["Body"] == "x"


def test_fifo_queue_false_is_accepted_for_a_standard_queue(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="plain", Attributes={"FifoQueue": "false"})["QueueUrl"]
    assert url.endswith("/plain")
    # Idempotent: the same request again names the same queue.
    again = sqs.create_queue(QueueName="plain", Attributes={"FifoQueue": "false"})["QueueUrl"]
    assert again == url
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert "FifoQueue" not in attributes
    with pytest.raises(ClientError, match=r"hyphens, or underscores\. 1 to 80 in length"):
        sqs.create_queue(QueueName="named.fifo", Attributes={"FifoQueue": "false"})
