"""The `Replication` attribute of queues and topics over SQS (JSON), SNS and REST: one of
none, replica or object, `none` unless given (the gateway here runs with the default
TIDEMQ_REPLICATION), fixed at creation; a bad value is refused with each protocol's
error and changes nothing. What each mode does on a cluster is
tests/tidemq/test_cluster_replication.py's."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from botocore.exceptions import ClientError


def _code(excinfo: pytest.ExceptionInfo[ClientError]) -> str:
    return str(excinfo.value.response["Error"]["Code"])


def test_a_queue_s_replication_is_set_on_create_and_fixed(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="copied", Attributes={"Replication": "replica"})["QueueUrl"]
    named = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["Replication"])
    assert named["Attributes"] == {"Replication": "replica"}
    plain = sqs.create_queue(QueueName="plain")["QueueUrl"]
    everything = sqs.get_queue_attributes(QueueUrl=plain, AttributeNames=["All"])["Attributes"]
    assert everything["Replication"] == "none"
    # Created again: naming the same mode, or none, is the same queue; another, a conflict.
    assert sqs.create_queue(QueueName="copied")["QueueUrl"] == url
    assert (
        sqs.create_queue(QueueName="copied", Attributes={"Replication": "replica"})["QueueUrl"]
        == url
    )
    with pytest.raises(ClientError) as exists:
        sqs.create_queue(QueueName="copied", Attributes={"Replication": "object"})
    assert _code(exists) == "QueueAlreadyExists"
    # Set to what it is, nothing changes; to anything else, refused with nothing applied.
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"Replication": "replica"})
    with pytest.raises(ClientError) as changed:
        sqs.set_queue_attributes(
            QueueUrl=url, Attributes={"Replication": "object", "VisibilityTimeout": "5"}
        )
    assert _code(changed) == "InvalidAttributeValue"
    assert "cannot be changed" in changed.value.response["Error"]["Message"]
    after = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert (after["Replication"], after["VisibilityTimeout"]) == ("replica", "30")


@pytest.mark.parametrize("value", ["", "Replica", "both", "none "])
def test_a_bad_replication_is_refused_and_creates_nothing(sqs: Any, sns: Any, value: str) -> None:
    with pytest.raises(ClientError) as refused:
        sqs.create_queue(QueueName="bad", Attributes={"Replication": value})
    assert _code(refused) == "InvalidAttributeValue"
    assert "none, replica, object" in refused.value.response["Error"]["Message"]
    assert sqs.list_queues().get("QueueUrls", []) == []
    with pytest.raises(ClientError) as topic:
        sns.create_topic(Name="bad", Attributes={"Replication": value})
    assert _code(topic) == "InvalidParameter"
    assert sns.list_topics()["Topics"] == []


def test_a_topic_s_replication_is_set_on_create_and_fixed(sns: Any) -> None:
    arn = sns.create_topic(Name="copied", Attributes={"Replication": "object"})["TopicArn"]
    assert sns.get_topic_attributes(TopicArn=arn)["Attributes"]["Replication"] == "object"
    plain = sns.create_topic(Name="plain")["TopicArn"]
    assert sns.get_topic_attributes(TopicArn=plain)["Attributes"]["Replication"] == "none"
    assert sns.create_topic(Name="plain", Attributes={"Replication": "none"})["TopicArn"] == plain
    with pytest.raises(ClientError) as other:
        sns.create_topic(Name="copied", Attributes={"Replication": "replica"})
    assert _code(other) == "InvalidParameter"
    with pytest.raises(ClientError) as changed:
        sns.set_topic_attributes(TopicArn=arn, AttributeName="Replication", AttributeValue="none")
    assert _code(changed) == "InvalidParameter"
    assert "cannot be changed" in changed.value.response["Error"]["Message"]
    assert sns.get_topic_attributes(TopicArn=arn)["Attributes"]["Replication"] == "object"


def test_replication_over_rest(rest: httpx.Client) -> None:
    created = rest.post("/v1/queues", json={"name": "r", "attributes": {"Replication": "object"}})
    assert created.status_code == 201, created.text
    assert created.json()["attributes"]["Replication"] == "object"
    assert rest.get("/v1/queues/r").json()["attributes"]["Replication"] == "object"
    refused = rest.patch("/v1/queues/r", json={"attributes": {"Replication": "none"}})
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"]["code"] == "InvalidAttributeValue"
    bad = rest.post("/v1/queues", json={"name": "bad", "attributes": {"Replication": "x"}})
    assert bad.status_code == 400, bad.text
    assert bad.json()["error"]["code"] == "InvalidAttributeValue"
    assert rest.get("/v1/queues/bad").status_code == 404
    topic = rest.post("/v1/topics", json={"name": "t", "attributes": {"Replication": "replica"}})
    assert topic.status_code == 201, topic.text
    assert rest.get("/v1/topics/t").json()["attributes"]["Replication"] == "replica"
    bad_topic = rest.post("/v1/topics", json={"name": "bad", "attributes": {"Replication": "x"}})
    assert bad_topic.status_code == 400, bad_topic.text
    assert rest.get("/v1/topics/bad").status_code == 404
