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


def test_each_invalid_entry_fails_on_its_own_and_the_valid_ones_are_sent(sqs: Any) -> None:
    url = _queue(sqs)
    text = {"DataType": "String", "StringValue": "v"}
    result = sqs.send_message_batch(
        QueueUrl=url,
        Entries=[
            {"Id": "ok1", "MessageBody": "one", "DelaySeconds": 0},
            {"Id": "late", "MessageBody": "x", "DelaySeconds": 901},
            {"Id": "badname", "MessageBody": "x", "MessageAttributes": {"AWS.x": text}},
            {
                "Id": "badtype",
                "MessageBody": "x",
                "MessageAttributes": {"a": {"DataType": "Text", "StringValue": "v"}},
            },
            {
                "Id": "notanumber",
                "MessageBody": "x",
                "MessageAttributes": {"n": {"DataType": "Number", "StringValue": "x"}},
            },
            {
                "Id": "toomany",
                "MessageBody": "x",
                "MessageAttributes": {f"a{i}": text for i in range(11)},
            },
            {"Id": "ok2", "MessageBody": "two", "MessageAttributes": {"a": text}},
        ],
    )
    assert [e["Id"] for e in result["Successful"]] == ["ok1", "ok2"]
    failed = {f["Id"]: (f["Code"], f["SenderFault"], f["Message"]) for f in result["Failed"]}
    assert list(failed) == ["late", "badname", "badtype", "notanumber", "toomany"]
    assert failed["late"] == (
        "InvalidParameterValue",
        True,
        "Value 901 for parameter DelaySeconds is invalid. "
        "Reason: DelaySeconds must be >= 0 and <= 900.",
    )
    assert failed["notanumber"] == (
        "InvalidParameterValue",
        True,
        "Can't cast the value of message (user) attribute 'n' to a number.",
    )
    assert failed["toomany"] == (
        "InvalidParameterValue",
        True,
        "Number of message attributes [11] exceeds the allowed maximum [10].",
    )
    assert {code for code, _, _ in failed.values()} == {"InvalidParameterValue"}
    received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert sorted(m["Body"] for m in received) == ["one", "two"]


def test_a_send_message_delay_out_of_range_is_refused_in_sqs_words(sqs: Any) -> None:
    url = _queue(sqs)
    with pytest.raises(ClientError) as caught:
        sqs.send_message(QueueUrl=url, MessageBody="x", DelaySeconds=901)
    assert caught.value.response["Error"]["Code"] == "InvalidParameterValue"
    assert caught.value.response["Error"]["Message"] == (
        "Value 901 for parameter DelaySeconds is invalid. "
        "Reason: DelaySeconds must be >= 0 and <= 900."
    )


@pytest.mark.parametrize(
    ("entries", "code", "message"),
    [
        (
            [],
            "AWS.SimpleQueueService.EmptyBatchRequest",
            "There should be at least one SendMessageBatchRequestEntry in the request.",
        ),
        (
            [{"Id": f"e{i}", "MessageBody": "x"} for i in range(11)],
            "AWS.SimpleQueueService.TooManyEntriesInBatchRequest",
            "Maximum number of entries per request are 10. You have sent 11.",
        ),
        (
            [{"Id": "same", "MessageBody": "x"}, {"Id": "same", "MessageBody": "y"}],
            "AWS.SimpleQueueService.BatchEntryIdsNotDistinct",
            "Id same repeated.",
        ),
        (
            # One entry over the limit makes the batch over it: the whole request fails.
            [{"Id": "a", "MessageBody": "x"}, {"Id": "big", "MessageBody": "y" * (1 << 20)}],
            "AWS.SimpleQueueService.BatchRequestTooLong",
            f"Batch requests cannot be longer than 1048576 bytes. You have sent {(1 << 20) + 1} "
            "bytes.",
        ),
    ],
)
def test_only_what_fails_a_whole_batch_on_sqs_fails_it(
    sqs: Any, entries: list[dict[str, str]], code: str, message: str
) -> None:
    url = _queue(sqs)
    with pytest.raises(ClientError) as caught:
        sqs.send_message_batch(QueueUrl=url, Entries=entries)
    assert (caught.value.response["Error"]["Code"], caught.value.response["Error"]["Message"]) == (
        code,
        message,
    )
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
