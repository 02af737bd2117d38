"""Issue #13's acceptance, tried as a new user would: the AWS CLI and boto3's `sns` client
against `tidemq up`. A topic feeds three queues with different filter policies (one raw,
two in SNS's envelope); 1 000 published messages with attributes land exactly where their
filters send them; a FIFO topic keeps each group's order into a FIFO queue and drops a
repeated publish."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from tests.conftest import TidemqUp

MESSAGES = 1000
COLOURS = ("red", "green", "blue", "yellow")


def _drain(sqs: Any, url: str, expected: int) -> list[dict[str, Any]]:
    received: list[dict[str, Any]] = []
    deadline = time.monotonic() + 60
    while len(received) < expected and time.monotonic() < deadline:
        batch = sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1, MessageAttributeNames=["All"]
        ).get("Messages", [])
        if batch:
            sqs.delete_message_batch(
                QueueUrl=url,
                Entries=[
                    {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(batch)
                ],
            )
        received += batch
    assert sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1).get("Messages", []) == []
    return received


def test_a_topic_fans_out_by_filter_policy_to_queues_set_up_with_the_aws_cli(
    tidemq_up: TidemqUp, tmp_path: Path
) -> None:
    up = tidemq_up()
    aws = up.aws_cli(tmp_path)
    topic = aws("sns", "create-topic", "--name", "orders")["TopicArn"]
    filters = {
        "red-or-green": ({"colour": ["red", "green"]}, "true"),
        "big": ({"size": [{"numeric": [">", 500]}]}, "false"),
        "not-blue-prefixed": (
            {"colour": [{"anything-but": {"prefix": "bl"}}], "size": [{"exists": True}]},
            "false",
        ),
    }
    urls = {}
    for name, (policy, raw) in filters.items():
        urls[name] = aws("sqs", "create-queue", "--queue-name", name)["QueueUrl"]
        arn = aws(
            "sqs",
            "get-queue-attributes",
            "--queue-url",
            urls[name],
            "--attribute-names",
            "QueueArn",
        )["Attributes"]["QueueArn"]
        attributes = json.dumps({"FilterPolicy": json.dumps(policy), "RawMessageDelivery": raw})
        aws(
            "sns",
            "subscribe",
            "--topic-arn",
            topic,
            "--protocol",
            "sqs",
            "--notification-endpoint",
            arn,
            "--attributes",
            attributes,
        )
    listed = aws("sns", "list-subscriptions-by-topic", "--topic-arn", topic)["Subscriptions"]
    assert len(listed) == 3

    sns = up.sns_client()
    for start in range(0, MESSAGES, 10):
        result = sns.publish_batch(
            TopicArn=topic,
            PublishBatchRequestEntries=[
                {
                    "Id": f"m{i}",
                    "Message": f"order {i}",
                    "MessageAttributes": {
                        "colour": {"DataType": "String", "StringValue": COLOURS[i % 4]},
                        "size": {"DataType": "Number", "StringValue": str(i)},
                    },
                }
                for i in range(start, start + 10)
            ],
        )
        assert len(result["Successful"]) == 10

    sqs = up.sqs_client()
    expected = {
        "red-or-green": {i for i in range(MESSAGES) if COLOURS[i % 4] in ("red", "green")},
        "big": {i for i in range(MESSAGES) if i > 500},
        "not-blue-prefixed": {i for i in range(MESSAGES) if COLOURS[i % 4] != "blue"},
    }
    for name, wanted in expected.items():
        received = _drain(sqs, urls[name], len(wanted))
        if filters[name][1] == "true":
            bodies = [m["Body"] for m in received]
            assert all(
                m["MessageAttributes"]["colour"]["StringValue"] in ("red", "green")
                for m in received
            )
        else:
            envelopes = [json.loads(m["Body"]) for m in received]
            assert all(e["Type"] == "Notification" and e["TopicArn"] == topic for e in envelopes)
            bodies = [e["Message"] for e in envelopes]
        assert sorted(bodies) == sorted(f"order {i}" for i in wanted), name


def test_a_fifo_topic_keeps_group_order_into_a_fifo_queue_and_drops_repeats(
    tidemq_up: TidemqUp, tmp_path: Path
) -> None:
    up = tidemq_up()
    aws = up.aws_cli(tmp_path)
    topic = aws(
        "sns",
        "create-topic",
        "--name",
        "ledger.fifo",
        "--attributes",
        "FifoTopic=true,ContentBasedDeduplication=true",
    )["TopicArn"]
    url = aws(
        "sqs", "create-queue", "--queue-name", "ledger.fifo", "--attributes", "FifoQueue=true"
    )["QueueUrl"]
    arn = aws("sqs", "get-queue-attributes", "--queue-url", url, "--attribute-names", "QueueArn")[
        "Attributes"
    ]["QueueArn"]
    aws(
        "sns",
        "subscribe",
        "--topic-arn",
        topic,
        "--protocol",
        "sqs",
        "--notification-endpoint",
        arn,
        "--attributes",
        json.dumps({"RawMessageDelivery": "true"}),
    )
    first = aws(
        "sns", "publish", "--topic-arn", topic, "--message", "g1-0", "--message-group-id", "g1"
    )
    again = aws(
        "sns", "publish", "--topic-arn", topic, "--message", "g1-0", "--message-group-id", "g1"
    )
    assert again["MessageId"] == first["MessageId"]
    sns = up.sns_client()
    for i in range(1, 50):
        for group in ("g1", "g2", "g3"):
            sns.publish(TopicArn=topic, Message=f"{group}-{i}", MessageGroupId=group)
    received = [m["Body"] for m in _drain(up.sqs_client(), url, 1 + 49 * 3)]
    assert len(received) == 1 + 49 * 3
    for group in ("g1", "g2", "g3"):
        order = [b for b in received if b.startswith(group + "-")]
        assert order == [f"{group}-{i}" for i in range(0 if group == "g1" else 1, 50)]
