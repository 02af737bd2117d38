"""SendMessageBatch, DeleteMessageBatch, ChangeMessageVisibilityBatch through boto3."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from botocore.exceptions import ClientError


def _queue(sqs: Any, name: str = "batch") -> str:
    return str(sqs.create_queue(QueueName=name)["QueueUrl"])


def test_a_send_batch_reports_each_entry(sqs: Any) -> None:
    url = _queue(sqs)
    result = sqs.send_message_batch(
        QueueUrl=url,
        Entries=[
            {"Id": "a", "MessageBody": "one"},
            {"Id": "b", "MessageBody": "bad \x00 body"},
            {
                "Id": "c",
                "MessageBody": "three",
                "MessageAttributes": {"n": {"DataType": "Number", "StringValue": "3"}},
            },
        ],
    )
    assert [e["Id"] for e in result["Successful"]] == ["a", "c"]
    assert result["Successful"][0]["MD5OfMessageBody"] == hashlib.md5(b"one").hexdigest()
    assert "MD5OfMessageAttributes" in result["Successful"][1]
    [failed] = result["Failed"]
    assert (failed["Id"], failed["Code"], failed["SenderFault"]) == (
        "b",
        "InvalidMessageContents",
        True,
    )
    received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert sorted(m["Body"] for m in received) == ["one", "three"]


@pytest.mark.parametrize(
    ("entries", "error"),
    [
        ([], "EmptyBatchRequest"),
        ([{"Id": f"e{i}", "MessageBody": "x"} for i in range(11)], "TooManyEntriesInBatchRequest"),
        (
            [{"Id": "same", "MessageBody": "x"}, {"Id": "same", "MessageBody": "y"}],
            "BatchEntryIdsNotDistinct",
        ),
        ([{"Id": "no spaces", "MessageBody": "x"}], "InvalidBatchEntryId"),
        ([{"Id": f"e{i}", "MessageBody": "x" * 120_000} for i in range(9)], "BatchRequestTooLong"),
    ],
)
def test_a_malformed_batch_sends_nothing(
    sqs: Any, entries: list[dict[str, str]], error: str
) -> None:
    url = _queue(sqs)
    with pytest.raises(ClientError) as caught:
        sqs.send_message_batch(QueueUrl=url, Entries=entries)
    assert caught.value.response["Error"]["QueryErrorCode"] == error
    assert "Messages" not in sqs.receive_message(QueueUrl=url)


def test_delete_and_visibility_batches(sqs: Any) -> None:
    url = _queue(sqs)
    sqs.send_message_batch(
        QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": str(i)} for i in range(3)]
    )
    messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert len(messages) == 3
    handles = {m["Body"]: m["ReceiptHandle"] for m in messages}

    changed = sqs.change_message_visibility_batch(
        QueueUrl=url,
        Entries=[
            {"Id": "zero", "ReceiptHandle": handles["0"], "VisibilityTimeout": 0},
            {"Id": "forged", "ReceiptHandle": "forged", "VisibilityTimeout": 0},
        ],
    )
    assert [e["Id"] for e in changed["Successful"]] == ["zero"]
    assert [(e["Id"], e["Code"]) for e in changed["Failed"]] == [
        ("forged", "ReceiptHandleIsInvalid")
    ]
    [again] = sqs.receive_message(QueueUrl=url)["Messages"]
    assert again["Body"] == "0"

    deleted = sqs.delete_message_batch(
        QueueUrl=url,
        Entries=[
            {"Id": "one", "ReceiptHandle": handles["1"]},
            {"Id": "two", "ReceiptHandle": handles["2"]},
            {"Id": "zero", "ReceiptHandle": again["ReceiptHandle"]},
        ],
    )
    assert sorted(e["Id"] for e in deleted["Successful"]) == ["one", "two", "zero"]
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert (
        attributes["ApproximateNumberOfMessages"],
        attributes["ApproximateNumberOfMessagesNotVisible"],
    ) == ("0", "0")
