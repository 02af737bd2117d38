"""AddPermission / RemovePermission: another account may use a queue it was granted."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.conftest import AccountSqs

OWNER = "123456789012"
OTHER = "210987654321"


@pytest.fixture
def other(account_sqs: AccountSqs) -> Any:
    return account_sqs(OTHER)


def test_a_granted_account_may_send_but_not_more(sqs: Any, other: Any) -> None:
    url = sqs.create_queue(QueueName="shared")["QueueUrl"]
    with pytest.raises(other.exceptions.QueueDoesNotExist):
        other.send_message(QueueUrl=url, MessageBody="before")
    sqs.add_permission(
        QueueUrl=url, Label="senders", AWSAccountIds=[OTHER], Actions=["SendMessage"]
    )

    other.send_message(QueueUrl=url, MessageBody="granted")
    other.send_message_batch(QueueUrl=url, Entries=[{"Id": "1", "MessageBody": "batched"}])
    with pytest.raises(other.exceptions.QueueDoesNotExist):
        other.receive_message(QueueUrl=url)
    with pytest.raises(other.exceptions.QueueDoesNotExist):
        other.delete_queue(QueueUrl=url)
    bodies = sorted(
        m["Body"] for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    )
    assert bodies == ["batched", "granted"]

    policy = json.loads(
        sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["Policy"])["Attributes"]["Policy"]
    )
    [statement] = policy["Statement"]
    # One action and one principal are strings, as SQS writes them.
    assert (statement["Sid"], statement["Action"]) == ("senders", "SQS:SendMessage")
    assert statement["Principal"] == {"AWS": f"arn:aws:iam::{OTHER}:root"}

    sqs.remove_permission(QueueUrl=url, Label="senders")
    with pytest.raises(other.exceptions.QueueDoesNotExist):
        other.send_message(QueueUrl=url, MessageBody="after")
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert "Policy" not in attributes


def test_a_granted_account_finds_the_queue_by_owner(sqs: Any, other: Any) -> None:
    url = sqs.create_queue(QueueName="findable")["QueueUrl"]
    sqs.add_permission(QueueUrl=url, Label="all", AWSAccountIds=[OTHER], Actions=["*"])
    found = other.get_queue_url(QueueName="findable", QueueOwnerAWSAccountId=OWNER)["QueueUrl"]
    assert found == url
    other.send_message(QueueUrl=found, MessageBody="hi")
    [message] = other.receive_message(QueueUrl=found)["Messages"]
    other.delete_message(QueueUrl=found, ReceiptHandle=message["ReceiptHandle"])
    with pytest.raises(other.exceptions.QueueDoesNotExist):
        other.set_queue_attributes(QueueUrl=found, Attributes={"DelaySeconds": "1"})
    assert other.list_queues().get("QueueUrls", []) == []  # not listed as its own


@pytest.mark.parametrize(
    ("label", "accounts", "actions", "reason"),
    [
        ("bad label!", [OTHER], ["SendMessage"], "Label"),
        ("ok", ["12345"], ["SendMessage"], "PrincipalId"),
        ("ok", [OTHER], ["DeleteQueue"], "ActionName"),
    ],
)
def test_bad_grants_are_refused(
    sqs: Any, label: str, accounts: list[str], actions: list[str], reason: str
) -> None:
    url = sqs.create_queue(QueueName="strict")["QueueUrl"]
    with pytest.raises(ClientError, match=reason):
        sqs.add_permission(QueueUrl=url, Label=label, AWSAccountIds=accounts, Actions=actions)
    sqs.add_permission(QueueUrl=url, Label="once", AWSAccountIds=[OTHER], Actions=["*"])
    with pytest.raises(ClientError, match="Already exists"):
        sqs.add_permission(QueueUrl=url, Label="once", AWSAccountIds=[OTHER], Actions=["*"])
    with pytest.raises(ClientError, match="can't find label"):
        sqs.remove_permission(QueueUrl=url, Label="never")
