"""HTTP subscriptions end to end, with a real webhook server on loopback: the
SubscriptionConfirmation handshake, signed notifications verified with the certificate
the gateway serves, retries when the endpoint answers 500, and the dead-letter queue
after the delivery policy's last retry."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gateway.core.notifications import verify
from tests.conftest import RunningGateway
from tests.served_apps import serve

WAIT_S = 20.0


@dataclass
class Endpoint:
    """A webhook that records every request and answers `status`."""

    url: str = ""
    status: int = 200
    received: list[tuple[dict[str, str], dict[str, Any]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def of_type(self, message_type: str) -> list[tuple[dict[str, str], dict[str, Any]]]:
        with self.lock:
            return [r for r in self.received if r[0]["x-amz-sns-message-type"] == message_type]

    def wait_for(
        self, message_type: str, count: int
    ) -> list[tuple[dict[str, str], dict[str, Any]]]:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            found = self.of_type(message_type)
            if len(found) >= count:
                return found
            time.sleep(0.05)
        raise AssertionError(
            f"{count} {message_type} expected, got {len(self.of_type(message_type))}"
        )


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    recorder = Endpoint()

    async def hook(request: Request) -> Response:
        body = await request.body()
        with recorder.lock:
            recorder.received.append((dict(request.headers), json.loads(body)))
        return Response(status_code=recorder.status)

    with serve(Starlette(routes=[Route("/hook", hook, methods=["POST"])])) as url:
        recorder.url = url + "/hook"
        yield recorder


@pytest.fixture
def sns(gateway: RunningGateway) -> Any:
    return gateway.sns_client()


def _confirm(sns: Any, topic: str, endpoint: Endpoint) -> str:
    result = sns.subscribe(TopicArn=topic, Protocol="http", Endpoint=endpoint.url)
    assert result["SubscriptionArn"] == "pending confirmation"
    [(headers, confirmation)] = endpoint.wait_for("SubscriptionConfirmation", 1)
    assert headers["x-amz-sns-topic-arn"] == topic
    assert confirmation["Type"] == "SubscriptionConfirmation"
    certificate = httpx.get(confirmation["SigningCertURL"]).content
    assert verify(confirmation, certificate)
    # Visiting the SubscribeURL (unsigned, as a browser would) confirms it.
    answer = httpx.get(confirmation["SubscribeURL"])
    assert answer.status_code == 200, answer.text
    [subscription] = sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"]
    assert subscription["SubscriptionArn"].startswith(topic + ":")
    return str(subscription["SubscriptionArn"])


def test_a_webhook_is_confirmed_then_gets_signed_notifications(
    sns: Any, endpoint: Endpoint
) -> None:
    topic = sns.create_topic(Name="hooks")["TopicArn"]
    subscription = _confirm(sns, topic, endpoint)
    sns.publish(
        TopicArn=topic,
        Message="hello",
        Subject="greeting",
        MessageAttributes={"kind": {"DataType": "String", "StringValue": "friendly"}},
    )
    [(headers, notification)] = endpoint.wait_for("Notification", 1)
    assert headers["x-amz-sns-subscription-arn"] == subscription
    assert headers["user-agent"] == "Amazon Simple Notification Service Agent"
    assert notification["Message"] == "hello"
    assert notification["Subject"] == "greeting"
    assert notification["MessageAttributes"] == {"kind": {"Type": "String", "Value": "friendly"}}
    certificate = httpx.get(notification["SigningCertURL"]).content
    assert verify(notification, certificate)
    tampered = {**notification, "Message": "goodbye"}
    assert not verify(tampered, certificate)


def test_failed_deliveries_are_retried_then_dead_lettered(
    sns: Any, sqs: Any, endpoint: Endpoint
) -> None:
    topic = sns.create_topic(Name="flaky")["TopicArn"]
    subscription = _confirm(sns, topic, endpoint)
    dlq = sqs.create_queue(QueueName="flaky-dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    policy = {
        "healthyRetryPolicy": {
            "minDelayTarget": 1,
            "maxDelayTarget": 1,
            "numRetries": 2,
            "numNoDelayRetries": 0,
            "numMinDelayRetries": 0,
            "numMaxDelayRetries": 0,
            "backoffFunction": "linear",
        }
    }
    sns.set_subscription_attributes(
        SubscriptionArn=subscription,
        AttributeName="DeliveryPolicy",
        AttributeValue=json.dumps(policy),
    )
    sns.set_subscription_attributes(
        SubscriptionArn=subscription,
        AttributeName="RedrivePolicy",
        AttributeValue=json.dumps({"deadLetterTargetArn": dlq_arn}),
    )
    endpoint.status = 500
    sns.publish(TopicArn=topic, Message="doomed")
    attempts = endpoint.wait_for("Notification", 3)
    assert {n["Message"] for _, n in attempts} == {"doomed"}
    deadline = time.monotonic() + WAIT_S
    messages: list[dict[str, Any]] = []
    while not messages and time.monotonic() < deadline:
        messages = sqs.receive_message(QueueUrl=dlq, WaitTimeSeconds=1).get("Messages", [])
    [dead] = messages
    assert json.loads(dead["Body"])["Message"] == "doomed"
    time.sleep(1.5)
    assert len(endpoint.of_type("Notification")) == 3  # no attempt after the last retry

    # Once the endpoint recovers, the next message is delivered at the first attempt.
    endpoint.status = 200
    sns.publish(TopicArn=topic, Message="fine")
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if any(n["Message"] == "fine" for _, n in endpoint.of_type("Notification")):
            break
        time.sleep(0.05)
    assert [n["Message"] for _, n in endpoint.of_type("Notification")].count("fine") == 1
