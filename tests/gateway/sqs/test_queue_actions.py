"""Queue actions through boto3: attributes, tags, purge, dead-letter sources."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError

ACCOUNT = "123456789012"


def test_set_and_get_queue_attributes(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="attrs", Attributes={"VisibilityTimeout": "7"})["QueueUrl"]
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"DelaySeconds": "3"})
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert attributes["VisibilityTimeout"] == "7"
    assert attributes["DelaySeconds"] == "3"
    assert attributes["QueueArn"] == f"arn:aws:sqs:us-east-1:{ACCOUNT}:attrs"
    some = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["DelaySeconds"])
    assert some["Attributes"] == {"DelaySeconds": "3"}
    with pytest.raises(sqs.exceptions.InvalidAttributeName):
        sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["Colour"])
    with pytest.raises(sqs.exceptions.InvalidAttributeValue):
        sqs.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "-1"})


def test_tags(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="tagged", tags={"team": "payments"})["QueueUrl"]
    sqs.tag_queue(QueueUrl=url, Tags={"env": "prod"})
    assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"team": "payments", "env": "prod"}
    sqs.untag_queue(QueueUrl=url, TagKeys=["team"])
    assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"env": "prod"}


def test_purge_empties_the_queue_once_a_minute(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="purged")["QueueUrl"]
    for body in ["a", "b", "c"]:
        sqs.send_message(QueueUrl=url, MessageBody=body)
    sqs.receive_message(QueueUrl=url)
    sqs.purge_queue(QueueUrl=url)
    assert "Messages" not in sqs.receive_message(QueueUrl=url, VisibilityTimeout=0)
    with pytest.raises(sqs.exceptions.PurgeQueueInProgress):
        sqs.purge_queue(QueueUrl=url)
    sqs.send_message(QueueUrl=url, MessageBody="after")
    assert sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "after"


def test_a_deleted_queue_name_is_reserved(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="short-lived")["QueueUrl"]
    sqs.delete_queue(QueueUrl=url)
    with pytest.raises(sqs.exceptions.QueueDeletedRecently):
        sqs.create_queue(QueueName="short-lived")


def test_dead_letter_sources_and_bad_policies(sqs: Any) -> None:
    dlq = sqs.create_queue(QueueName="dlq")["QueueUrl"]
    policy = json.dumps(
        {"deadLetterTargetArn": f"arn:aws:sqs:us-east-1:{ACCOUNT}:dlq", "maxReceiveCount": "2"}
    )
    src = sqs.create_queue(QueueName="src", Attributes={"RedrivePolicy": policy})["QueueUrl"]
    assert sqs.list_dead_letter_source_queues(QueueUrl=dlq)["queueUrls"] == [src]
    stored = sqs.get_queue_attributes(QueueUrl=src, AttributeNames=["RedrivePolicy"])
    assert json.loads(stored["Attributes"]["RedrivePolicy"])["maxReceiveCount"] == 2

    missing = policy.replace(":dlq", ":nowhere")
    with pytest.raises(ClientError, match="Dead letter target does not exist"):
        sqs.create_queue(QueueName="src2", Attributes={"RedrivePolicy": missing})
    with pytest.raises(sqs.exceptions.InvalidAttributeValue):
        sqs.create_queue(QueueName="src2", Attributes={"RedrivePolicy": "{not json"})
    with pytest.raises(sqs.exceptions.QueueDoesNotExist):
        sqs.get_queue_url(QueueName="src2")
