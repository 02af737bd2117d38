"""The `pull` protocol through boto3's `sns` client: subscribed (and confirmed) at once,
its attributes checked as SNS checks a subscription's, and what is published with boto3
received on the REST API by the subscription's id."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from botocore.exceptions import ClientError

from tests.conftest import TEST_ACCOUNT_ID, RunningGateway
from tests.gateway.rest.conftest import DAY_MS, issue_token, rest_client


@pytest.fixture
def sns(gateway: RunningGateway) -> Any:
    return gateway.sns_client()


@pytest.fixture
def rest(gateway: RunningGateway) -> Any:
    token = asyncio.run(issue_token(gateway.redis_url, TEST_ACCOUNT_ID, DAY_MS)).token
    with rest_client(gateway.url, token) as client:
        yield client


def _code(excinfo: pytest.ExceptionInfo[ClientError]) -> str:
    return str(excinfo.value.response["Error"]["Code"])


def test_a_pull_subscription_is_confirmed_at_once_and_received_on_rest(
    sns: Any, rest: httpx.Client
) -> None:
    topic = sns.create_topic(Name="news")["TopicArn"]
    arn = sns.subscribe(TopicArn=topic, Protocol="pull", Endpoint="readers")["SubscriptionArn"]
    assert arn.startswith(topic + ":")
    again = sns.subscribe(TopicArn=topic, Protocol="pull", Endpoint="readers")
    assert again["SubscriptionArn"] == arn
    [listed] = sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"]
    assert (listed["SubscriptionArn"], listed["Protocol"], listed["Endpoint"]) == (
        arn,
        "pull",
        "readers",
    )
    attributes = sns.get_subscription_attributes(SubscriptionArn=arn)["Attributes"]
    assert attributes["PendingConfirmation"] == "false"
    assert attributes["VisibilityTimeout"] == "30"
    sns.set_subscription_attributes(
        SubscriptionArn=arn, AttributeName="VisibilityTimeout", AttributeValue="120"
    )
    assert sns.get_topic_attributes(TopicArn=topic)["Attributes"]["SubscriptionsConfirmed"] == "1"

    sns.publish(
        TopicArn=topic,
        Message="hello",
        Subject="greeting",
        MessageAttributes={"tone": {"DataType": "String", "StringValue": "warm"}},
    )
    subscription_id = arn.rsplit(":", 1)[1]
    [message] = rest.post(
        f"/v1/subscriptions/{subscription_id}/receive", json={"wait_seconds": 5}
    ).json()["messages"]
    assert message["body"] == "hello"
    assert message["system_attributes"] == {"Subject": "greeting"}
    assert message["attributes"] == {"tone": {"data_type": "String", "string_value": "warm"}}
    # Its visibility timeout is the subscription's: 120 s, so not back yet.
    again_received = rest.post(f"/v1/subscriptions/{subscription_id}/receive", json={})
    assert again_received.json()["messages"] == []

    sns.unsubscribe(SubscriptionArn=arn)
    assert rest.get(f"/v1/subscriptions/{subscription_id}").status_code == 404


def test_pull_attributes_follow_sns_s_rules(sns: Any, gateway: RunningGateway) -> None:
    topic = sns.create_topic(Name="news")["TopicArn"]
    fifo = sns.create_topic(Name="jobs.fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
    dlq = f"arn:aws:sqs:us-east-1:{TEST_ACCOUNT_ID}:news-dlq"
    with pytest.raises(ClientError) as excinfo:
        sns.subscribe(TopicArn=fifo, Protocol="pull", Endpoint="workers")
    assert _code(excinfo) == "InvalidParameter"
    for attributes in (
        {"RawMessageDelivery": "true"},
        {"RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq})},
        {"VisibilityTimeout": "-1"},
    ):
        with pytest.raises(ClientError) as excinfo:
            sns.subscribe(
                TopicArn=topic, Protocol="pull", Endpoint="workers", Attributes=attributes
            )
        assert _code(excinfo) == "InvalidParameter", attributes
    redrive = json.dumps({"deadLetterTargetArn": dlq, "maxReceiveCount": 5})
    arn = sns.subscribe(
        TopicArn=topic, Protocol="pull", Endpoint="workers", Attributes={"RedrivePolicy": redrive}
    )["SubscriptionArn"]
    shown = sns.get_subscription_attributes(SubscriptionArn=arn)["Attributes"]
    assert json.loads(shown["RedrivePolicy"]) == {"deadLetterTargetArn": dlq, "maxReceiveCount": 5}
    # SNS's own RedrivePolicy, the ARN alone, stays what the pushed protocols take; and
    # VisibilityTimeout is a pull subscription's only.
    queue = gateway.sqs_client().create_queue(QueueName="copies")["QueueUrl"]
    queue_arn = f"arn:aws:sqs:us-east-1:{TEST_ACCOUNT_ID}:copies"
    assert queue.endswith("/copies")
    pushed = sns.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=queue_arn,
        Attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq})},
    )["SubscriptionArn"]
    with pytest.raises(ClientError) as excinfo:
        sns.set_subscription_attributes(
            SubscriptionArn=pushed, AttributeName="VisibilityTimeout", AttributeValue="10"
        )
    assert _code(excinfo) == "InvalidParameter"
