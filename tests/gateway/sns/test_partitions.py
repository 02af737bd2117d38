"""Topics of several partitions through boto3's `sns`: the attribute, publishes spread
over the partitions and every subscription (pull, SQS fan-out) covering all of them,
FIFO topics keeping each group's order into a FIFO queue."""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis
from botocore.exceptions import ClientError

from control_plane.redis_keys import SubscriptionKeys
from tests.conftest import TEST_ACCOUNT_ID, RunningGateway
from tests.gateway.rest.conftest import DAY_MS, issue_token, rest_client

DELIVERY_WAIT_S = 20.0


@pytest.fixture
def sns(gateway: RunningGateway) -> Any:
    return gateway.sns_client()


@pytest.fixture
def rest(gateway: RunningGateway) -> Iterator[httpx.Client]:
    token = asyncio.run(issue_token(gateway.redis_url, TEST_ACCOUNT_ID, DAY_MS)).token
    with rest_client(gateway.url, token) as client:
        yield client


def _code(excinfo: pytest.ExceptionInfo[ClientError]) -> str:
    return str(excinfo.value.response["Error"]["Code"])


def _subscription_cursors(gateway: RunningGateway, subscription_id: str) -> dict[int, int]:
    client = redis.Redis.from_url(gateway.redis_url)
    try:
        raw = client.hgetall(SubscriptionKeys(subscription_id).cursors)
    finally:
        client.close()
    return {int(p): int(o) for p, o in raw.items()}


def test_partitions_is_a_topic_attribute_fixed_at_creation(
    sns: Any, gateway: RunningGateway
) -> None:
    arn = sns.create_topic(Name="wide", Attributes={"Partitions": "4"})["TopicArn"]
    assert sns.get_topic_attributes(TopicArn=arn)["Attributes"]["Partitions"] == "4"
    plain = sns.create_topic(Name="plain")["TopicArn"]
    assert sns.get_topic_attributes(TopicArn=plain)["Attributes"]["Partitions"] == "1"
    assert sns.create_topic(Name="plain", Attributes={"Partitions": "1"})["TopicArn"] == plain
    with pytest.raises(ClientError) as other:
        sns.create_topic(Name="wide", Attributes={"Partitions": "2"})
    assert _code(other) == "InvalidParameter"
    with pytest.raises(ClientError) as changed:
        sns.set_topic_attributes(TopicArn=arn, AttributeName="Partitions", AttributeValue="8")
    assert _code(changed) == "InvalidParameter"
    assert "cannot be changed" in changed.value.response["Error"]["Message"]
    for value in ("0", "65", "x"):
        with pytest.raises(ClientError) as bad:
            sns.create_topic(Name="bad", Attributes={"Partitions": value})
        assert _code(bad) == "InvalidParameter"
    assert sns.get_topic_attributes(TopicArn=arn)["Attributes"]["Partitions"] == "4"
    names = {t["TopicArn"].rsplit(":", 1)[1] for t in sns.list_topics()["Topics"]}
    assert names == {"wide", "plain"}


def test_a_pull_subscription_receives_from_every_partition(
    sns: Any, rest: httpx.Client, gateway: RunningGateway
) -> None:
    topic = sns.create_topic(Name="news", Attributes={"Partitions": "4"})["TopicArn"]
    arn = sns.subscribe(TopicArn=topic, Protocol="pull", Endpoint="readers")["SubscriptionArn"]
    subscription_id = arn.rsplit(":", 1)[1]
    assert set(_subscription_cursors(gateway, subscription_id)) == {0, 1, 2, 3}
    published = set()
    for i in range(30):
        entries = [{"Id": str(j), "Message": f"n{i}-{j}"} for j in range(2)]
        assert not sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=entries)["Failed"]
        published |= {e["Message"] for e in entries}
    path = f"/v1/subscriptions/{subscription_id}"
    assert rest.get(path).json()["stats"]["visible"] == 60
    received: list[str] = []
    while True:
        messages = rest.post(path + "/receive", json={"max_messages": 10}).json()["messages"]
        if not messages:
            break
        received += [m["body"] for m in messages]
        handles = [m["receipt_handle"] for m in messages]
        assert rest.post(path + "/delete", json={"receipt_handles": handles}).status_code == 200
    assert sorted(received) == sorted(published)
    cursors = _subscription_cursors(gateway, subscription_id)
    assert sum(cursors.values()) == 60
    assert len([end for end in cursors.values() if end]) >= 3  # 30 batches over 4 at random
    # Seeking to a time finds it in every partition: all 60 again.
    sought = rest.post(path + "/seek", json={"timestamp": 0})
    assert sought.status_code == 200, sought.text
    assert rest.get(path).json()["stats"]["visible"] == 60


def test_fan_out_to_a_queue_covers_every_partition(sns: Any, gateway: RunningGateway) -> None:
    sqs = gateway.sqs_client()
    topic = sns.create_topic(Name="events", Attributes={"Partitions": "3"})["TopicArn"]
    url = sqs.create_queue(QueueName="copies", Attributes={"Partitions": "2"})["QueueUrl"]
    queue_arn = f"arn:aws:sqs:us-east-1:{TEST_ACCOUNT_ID}:copies"
    sns.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=queue_arn,
        Attributes={"RawMessageDelivery": "true"},
    )
    published = {f"e{i}" for i in range(30)}
    for body in sorted(published):
        sns.publish(TopicArn=topic, Message=body)
    assert sorted(m["Body"] for m in _drain(sqs, url, 30)) == sorted(published)


def test_a_fifo_topic_keeps_each_group_s_order_across_partitions(
    sns: Any, gateway: RunningGateway
) -> None:
    sqs = gateway.sqs_client()
    topic = sns.create_topic(
        Name="orders.fifo",
        Attributes={"FifoTopic": "true", "ContentBasedDeduplication": "true", "Partitions": "4"},
    )["TopicArn"]
    url = sqs.create_queue(
        QueueName="orders.fifo", Attributes={"FifoQueue": "true", "Partitions": "3"}
    )["QueueUrl"]
    sns.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=f"arn:aws:sqs:us-east-1:{TEST_ACCOUNT_ID}:orders.fifo",
        Attributes={"RawMessageDelivery": "true"},
    )
    groups = [f"g{i}" for i in range(6)]
    sequences: dict[str, list[int]] = defaultdict(list)
    for n in range(4):
        entries = [{"Id": g, "Message": f"{g}:{n}", "MessageGroupId": g} for g in groups]
        result = sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=entries)
        assert not result["Failed"]
        for ok in result["Successful"]:
            sequences[ok["Id"]].append(int(ok["SequenceNumber"]))
    repeat = sns.publish(TopicArn=topic, Message="g2:0", MessageGroupId="g2")
    assert int(repeat["SequenceNumber"]) == sequences["g2"][0]  # deduplicated
    assert len({s for values in sequences.values() for s in values}) == 24
    assert all(values == sorted(values) for values in sequences.values())
    by_group: dict[str, list[str]] = defaultdict(list)
    for message in _drain(sqs, url, 24, attribute_names=["MessageGroupId"]):
        by_group[message["Attributes"]["MessageGroupId"]].append(message["Body"])
    assert by_group == {g: [f"{g}:{n}" for n in range(4)] for g in groups}
    time.sleep(1)
    assert sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1).get("Messages", []) == []


def _drain(
    sqs: Any, url: str, expected: int, attribute_names: list[str] | None = None
) -> list[dict[str, Any]]:
    """Receives (and deletes) until `expected` messages came, or the wait ran out."""
    received: list[dict[str, Any]] = []
    deadline = time.monotonic() + DELIVERY_WAIT_S
    while len(received) < expected and time.monotonic() < deadline:
        batch = sqs.receive_message(
            QueueUrl=url,
            MaxNumberOfMessages=10,
            WaitTimeSeconds=1,
            AttributeNames=attribute_names or [],
        ).get("Messages", [])
        for message in batch:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
        received += batch
    return received
