"""A receipt handle names one delivery: one from an earlier delivery neither deletes nor
changes the visibility of a later one. AWS documents this for DeleteMessage ("the request
succeeds, but the message will not be deleted"); TideMQ holds it for both actions, and
docs/sqs-compatibility.md says so."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError


def _deliver_twice(sqs: Any) -> tuple[str, str, str]:
    url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="once")
    [first] = sqs.receive_message(QueueUrl=url, VisibilityTimeout=0)["Messages"]
    [second] = sqs.receive_message(QueueUrl=url, VisibilityTimeout=60)["Messages"]
    assert first["MessageId"] == second["MessageId"]
    assert first["ReceiptHandle"] != second["ReceiptHandle"]
    return url, first["ReceiptHandle"], second["ReceiptHandle"]


def _count(sqs: Any, url: str) -> tuple[str, str]:
    attributes = sqs.get_queue_attributes(
        QueueUrl=url,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return (
        attributes["ApproximateNumberOfMessages"],
        attributes["ApproximateNumberOfMessagesNotVisible"],
    )


def test_an_old_receipt_deletes_nothing_and_succeeds(sqs: Any) -> None:
    url, old, current = _deliver_twice(sqs)
    sqs.delete_message(QueueUrl=url, ReceiptHandle=old)  # succeeds, as on SQS
    assert _count(sqs, url) == ("0", "1"), "the later delivery is still in flight"
    sqs.delete_message(QueueUrl=url, ReceiptHandle=current)
    assert _count(sqs, url) == ("0", "0")


def test_an_old_receipt_does_not_change_the_later_delivery_s_visibility(sqs: Any) -> None:
    url, old, _current = _deliver_twice(sqs)
    with pytest.raises(ClientError) as refused:
        sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=old, VisibilityTimeout=0)
    # SQS's answer for a receipt whose message is not in flight under it.
    assert refused.value.response["Error"] == {
        "Code": "InvalidParameterValue",
        "QueryErrorCode": "InvalidParameterValueException",
        "Type": "Sender",
        "Message": f"Value {old} for parameter ReceiptHandle is invalid. Reason: Message does "
        "not exist or is not available for visibility timeout change.",
    }
    assert _count(sqs, url) == ("0", "1"), "still invisible: the change did not apply"
