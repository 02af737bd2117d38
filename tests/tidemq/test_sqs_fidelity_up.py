"""Issue #15's themes, tried as a new user would: boto3 against `tidemq up`, one check of
each theme with AWS's exact answer (the full tables are in tests/gateway/sqs/, against the
same stack in-process)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.conftest import TidemqUp

OTHER = "210987654321"


def _refused(call: Any, **params: Any) -> tuple[int, str, str]:
    with pytest.raises(ClientError) as caught:
        call(**params)
    response = caught.value.response
    return (
        response["ResponseMetadata"]["HTTPStatusCode"],
        response["Error"]["Code"],
        response["Error"]["Message"],
    )


def test_each_theme_against_tidemq_up(tidemq_up: TidemqUp) -> None:
    sqs = tidemq_up().sqs_client()

    # 1. Message size: 1 MiB by default, and the limit named in the error.
    url = sqs.create_queue(QueueName="sizes")["QueueUrl"]
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["MaximumMessageSize"])
    assert attributes["Attributes"]["MaximumMessageSize"] == "1048576"
    sqs.send_message(QueueUrl=url, MessageBody="x" * 1_048_576)
    status, code, message = _refused(sqs.send_message, QueueUrl=url, MessageBody="x" * 1_048_577)
    assert (status, code) == (400, "InvalidParameterValue")
    assert "1048576" in message

    # 2. FIFO: DelaySeconds=0 is fine; a batch entry without a group fails on its own.
    fifo = sqs.create_queue(QueueName="f.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    sqs.send_message(
        QueueUrl=fifo,
        MessageBody="a",
        MessageGroupId="g",
        MessageDeduplicationId="1",
        DelaySeconds=0,
    )
    result = sqs.send_message_batch(
        QueueUrl=fifo,
        Entries=[
            {"Id": "ok", "MessageBody": "b", "MessageGroupId": "g", "MessageDeduplicationId": "2"},
            {"Id": "nogroup", "MessageBody": "c", "MessageDeduplicationId": "3"},
        ],
    )
    assert [s["Id"] for s in result["Successful"]] == ["ok"]
    [failed] = result["Failed"]
    assert (failed["Id"], failed["Code"], failed["SenderFault"]) == (
        "nogroup",
        "MissingParameter",
        True,
    )
    assert failed["Message"] == "The request must contain the parameter MessageGroupId."

    # 3. Batches report per entry: a delay out of range fails alone.
    result = sqs.send_message_batch(
        QueueUrl=url,
        Entries=[
            {"Id": "fine", "MessageBody": "x"},
            {"Id": "late", "MessageBody": "x", "DelaySeconds": 901},
        ],
    )
    assert [s["Id"] for s in result["Successful"]] == ["fine"]
    assert [f["Id"] for f in result["Failed"]] == ["late"]

    # 4. Encryption attributes: SSE-SQS on by default, a KMS key kept.
    kms = sqs.create_queue(QueueName="kms", Attributes={"KmsMasterKeyId": "alias/aws/sqs"})
    shown = sqs.get_queue_attributes(QueueUrl=kms["QueueUrl"], AttributeNames=["All"])
    assert shown["Attributes"]["KmsMasterKeyId"] == "alias/aws/sqs"
    plain = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["SqsManagedSseEnabled"])
    assert plain["Attributes"]["SqsManagedSseEnabled"] == "true"

    # 5. Attribute selection by prefix wildcard.
    picked = sqs.create_queue(QueueName="picked")["QueueUrl"]
    text = {"DataType": "String", "StringValue": "v"}
    sqs.send_message(
        QueueUrl=picked,
        MessageBody="m",
        MessageAttributes={"Custom.a": text, "Custom.b": text, "Other": text},
    )
    [received] = sqs.receive_message(QueueUrl=picked, MessageAttributeNames=["Custom.*"])[
        "Messages"
    ]
    assert set(received["MessageAttributes"]) == {"Custom.a", "Custom.b"}

    # 6. Attribute names with spaces around them are taken.
    spaced = sqs.create_queue(QueueName="spaced", Attributes={" DelaySeconds ": "5"})
    delay = sqs.get_queue_attributes(QueueUrl=spaced["QueueUrl"], AttributeNames=["DelaySeconds"])
    assert delay["Attributes"]["DelaySeconds"] == "5"

    # 7. Error text word for word, and AddPermission's policy document.
    handle = "garbage"
    assert _refused(sqs.delete_message, QueueUrl=url, ReceiptHandle=handle) == (
        400,
        "ReceiptHandleIsInvalid",
        f'The input receipt handle "{handle}" is not a valid receipt handle.',
    )
    sqs.add_permission(QueueUrl=url, Label="one", AWSAccountIds=[OTHER], Actions=["SendMessage"])
    policy = json.loads(
        sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["Policy"])["Attributes"]["Policy"]
    )
    assert policy["Version"] == "2008-10-17"
    assert policy["Statement"][0]["Principal"] == {"AWS": f"arn:aws:iam::{OTHER}:root"}
    assert policy["Statement"][0]["Action"] == "SQS:SendMessage"

    # 8. Stricter where AWS documents it: an earlier receipt deletes nothing.
    stale = sqs.create_queue(QueueName="stale")["QueueUrl"]
    sqs.send_message(QueueUrl=stale, MessageBody="once")
    [first] = sqs.receive_message(QueueUrl=stale, VisibilityTimeout=0)["Messages"]
    [second] = sqs.receive_message(QueueUrl=stale, VisibilityTimeout=0)["Messages"]
    sqs.delete_message(QueueUrl=stale, ReceiptHandle=first["ReceiptHandle"])  # succeeds
    [again] = sqs.receive_message(QueueUrl=stale, VisibilityTimeout=30)["Messages"]
    assert again["Body"] == "once"
    sqs.delete_message(QueueUrl=stale, ReceiptHandle=again["ReceiptHandle"])
    assert second["MessageId"] == again["MessageId"]
