"""SNS -> SQS fan-out through boto3's `sns` and `sqs` clients against a real gateway:
filter policies, SNS's envelope and raw delivery, FIFO order and deduplication."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.conftest import RunningGateway

DELIVERY_WAIT_S = 20.0


@pytest.fixture
def sns(gateway: RunningGateway) -> Any:
    return gateway.sns_client()


def _queue(sqs: Any, name: str, **attributes: str) -> tuple[str, str]:
    url = sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    return url, arn


def _drain(sqs: Any, url: str, expected: int) -> list[dict[str, Any]]:
    """Receives (and deletes) until `expected` messages came, or the wait ran out."""
    received: list[dict[str, Any]] = []
    deadline = time.monotonic() + DELIVERY_WAIT_S
    while len(received) < expected and time.monotonic() < deadline:
        batch = sqs.receive_message(
            QueueUrl=url,
            MaxNumberOfMessages=10,
            WaitTimeSeconds=1,
            MessageAttributeNames=["All"],
        ).get("Messages", [])
        for message in batch:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
        received += batch
    return received


def _assert_empty(sqs: Any, url: str) -> None:
    extra = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1).get("Messages", [])
    assert extra == []


def test_each_queue_gets_exactly_the_messages_its_filter_policy_matches(sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name="orders")["TopicArn"]
    all_url, all_arn = _queue(sqs, "all-orders")
    red_url, red_arn = _queue(sqs, "red-orders")
    big_url, big_arn = _queue(sqs, "big-orders")
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=all_arn)
    sns.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=red_arn,
        Attributes={"FilterPolicy": json.dumps({"colour": ["red"]}), "RawMessageDelivery": "true"},
    )
    sns.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=big_arn,
        Attributes={"FilterPolicy": json.dumps({"size": [{"numeric": [">=", 10]}]})},
    )
    sent = []
    for i in range(30):
        colour = ["red", "green", "blue"][i % 3]
        sns.publish(
            TopicArn=topic,
            Message=f"order {i}",
            Subject="new order",
            MessageAttributes={
                "colour": {"DataType": "String", "StringValue": colour},
                "size": {"DataType": "Number", "StringValue": str(i)},
            },
        )
        sent.append((i, colour))

    everything = _drain(sqs, all_url, 30)
    envelopes = [json.loads(m["Body"]) for m in everything]
    assert sorted(e["Message"] for e in envelopes) == sorted(f"order {i}" for i, _ in sent)
    first = envelopes[0]
    assert first["Type"] == "Notification"
    assert first["TopicArn"] == topic
    assert first["Subject"] == "new order"
    assert first["MessageAttributes"]["colour"]["Type"] == "String"
    assert first["SignatureVersion"] == "1"
    assert first["Signature"]
    assert first["SigningCertURL"].endswith(".pem")
    assert "Action=Unsubscribe" in first["UnsubscribeURL"]

    reds = _drain(sqs, red_url, 10)
    assert sorted(m["Body"] for m in reds) == sorted(f"order {i}" for i, c in sent if c == "red")
    assert all(m["MessageAttributes"]["colour"]["StringValue"] == "red" for m in reds)

    bigs = _drain(sqs, big_url, 20)
    assert sorted(json.loads(m["Body"])["Message"] for m in bigs) == sorted(
        f"order {i}" for i, _ in sent if i >= 10
    )
    for url in (all_url, red_url, big_url):
        _assert_empty(sqs, url)


def test_a_subscription_gets_only_what_is_published_after_it(sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name="late")["TopicArn"]
    sns.publish(TopicArn=topic, Message="before")
    url, arn = _queue(sqs, "late-queue")
    sns.subscribe(
        TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={"RawMessageDelivery": "true"}
    )
    sns.publish(TopicArn=topic, Message="after")
    assert [m["Body"] for m in _drain(sqs, url, 1)] == ["after"]
    _assert_empty(sqs, url)


def test_after_unsubscribe_nothing_more_is_delivered(sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name="leaving")["TopicArn"]
    url, arn = _queue(sqs, "leaving-queue")
    subscription = sns.subscribe(
        TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={"RawMessageDelivery": "true"}
    )["SubscriptionArn"]
    sns.publish(TopicArn=topic, Message="one")
    assert [m["Body"] for m in _drain(sqs, url, 1)] == ["one"]
    sns.unsubscribe(SubscriptionArn=subscription)
    sns.publish(TopicArn=topic, Message="two")
    time.sleep(1.5)
    _assert_empty(sqs, url)


def test_a_fifo_topic_keeps_order_per_group_and_drops_duplicates(sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(
        Name="ledger.fifo", Attributes={"FifoTopic": "true", "ContentBasedDeduplication": "true"}
    )["TopicArn"]
    url, arn = _queue(sqs, "ledger.fifo", FifoQueue="true")
    sns.subscribe(
        TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={"RawMessageDelivery": "true"}
    )
    first = sns.publish(TopicArn=topic, Message="a-0", MessageGroupId="a")
    again = sns.publish(TopicArn=topic, Message="a-0", MessageGroupId="a")
    assert again["MessageId"] == first["MessageId"]
    assert again["SequenceNumber"] == first["SequenceNumber"]
    for i in range(1, 20):
        for group in ("a", "b"):
            sns.publish(TopicArn=topic, Message=f"{group}-{i}", MessageGroupId=group)
    sns.publish(TopicArn=topic, Message="b-0", MessageGroupId="b", MessageDeduplicationId="x")
    sns.publish(TopicArn=topic, Message="b-0", MessageGroupId="b", MessageDeduplicationId="x")

    received = _drain(sqs, url, 40)
    bodies = [m["Body"] for m in received]
    assert sorted(bodies) == sorted(
        [f"a-{i}" for i in range(20)] + [f"b-{i}" for i in range(1, 20)] + ["b-0"]
    )
    a_order = [b for b in bodies if b.startswith("a-")]
    assert a_order == [f"a-{i}" for i in range(20)]
    b_order = [b for b in bodies if b.startswith("b-")]
    assert b_order == [f"b-{i}" for i in range(1, 20)] + ["b-0"]
    _assert_empty(sqs, url)


def test_a_message_structure_gives_sqs_its_own_text(sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name="structured")["TopicArn"]
    url, arn = _queue(sqs, "structured-queue")
    sns.subscribe(
        TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={"RawMessageDelivery": "true"}
    )
    sns.publish(
        TopicArn=topic,
        MessageStructure="json",
        Message=json.dumps({"default": "for everyone", "sqs": "for queues"}),
    )
    assert [m["Body"] for m in _drain(sqs, url, 1)] == ["for queues"]


def test_publish_batch_delivers_every_valid_entry(sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name="batches")["TopicArn"]
    url, arn = _queue(sqs, "batches-queue")
    sns.subscribe(
        TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={"RawMessageDelivery": "true"}
    )
    result = sns.publish_batch(
        TopicArn=topic,
        PublishBatchRequestEntries=[
            {"Id": "one", "Message": "first"},
            {"Id": "two", "Message": ""},
            {"Id": "three", "Message": "third"},
        ],
    )
    assert sorted(s["Id"] for s in result["Successful"]) == ["one", "three"]
    [failed] = result["Failed"]
    assert failed["Id"] == "two"
    assert failed["Code"] == "InvalidParameter"
    assert failed["SenderFault"] is True
    assert sorted(m["Body"] for m in _drain(sqs, url, 2)) == ["first", "third"]


def test_another_accounts_queue_gets_messages_only_if_its_policy_allows_the_topics_account(
    sns: Any, sqs: Any, account_sqs: Any
) -> None:
    other = account_sqs("111122223333")
    url, arn = _queue(other, "theirs")
    topic = sns.create_topic(Name="outbound")["TopicArn"]
    sns.subscribe(
        TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={"RawMessageDelivery": "true"}
    )
    sns.publish(TopicArn=topic, Message="unasked")
    time.sleep(1.5)
    _assert_empty(other, url)

    owner = topic.split(":")[4]
    other.add_permission(
        QueueUrl=url, Label="from-topic", AWSAccountIds=[owner], Actions=["SendMessage"]
    )
    sns.publish(TopicArn=topic, Message="allowed")
    assert [m["Body"] for m in _drain(other, url, 1)] == ["allowed"]
    _assert_empty(other, url)
