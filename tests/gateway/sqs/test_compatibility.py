"""SQS compatibility: every action of botocore's SQS model, through real boto3, with every
raw response checked field by field against the model's output shape."""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any

import botocore.session
import orjson
import pytest
from botocore.model import ListShape, MapShape, Shape, StructureShape

from gateway.sqs.actions import ACTIONS
from tests.conftest import AccountSqs

ACCOUNT = "123456789012"
OTHER = "210987654321"
SQS_MODEL = botocore.session.get_session().get_service_model("sqs")


def _problems(shape: Shape, value: Any, path: str) -> list[str]:
    """Where `value` departs from `shape`: unknown members, wrong types."""
    if isinstance(shape, StructureShape):
        return _structure_problems(shape, value, path)
    if isinstance(shape, ListShape):
        if not isinstance(value, list):
            return [f"{path}: expected a list"]
        return [p for i, v in enumerate(value) for p in _problems(shape.member, v, f"{path}[{i}]")]
    if isinstance(shape, MapShape):
        if not isinstance(value, dict):
            return [f"{path}: expected a map"]
        return [p for k, v in value.items() for p in _problems(shape.value, v, f"{path}[{k}]")]
    return _scalar_problems(shape, value, path)


def _structure_problems(shape: StructureShape, value: Any, path: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{path}: expected an object"]
    found = []
    for key, item in value.items():
        if key not in shape.members:
            found.append(f"{path}.{key}: not in the model")
        else:
            found += _problems(shape.members[key], item, f"{path}.{key}")
    return found


def _scalar_problems(shape: Shape, value: Any, path: str) -> list[str]:
    expected = {
        "string": str,
        "blob": str,
        "integer": int,
        "long": int,
        "boolean": bool,
        "timestamp": (int, float),
    }[shape.type_name]
    return [] if isinstance(value, expected) else [f"{path}: expected {shape.type_name}"]


@pytest.fixture
def checked(sqs: Any) -> tuple[Any, dict[str, list[str]]]:
    """The boto3 client, and the problems found in each action's raw responses."""
    seen: dict[str, list[str]] = {}

    def check(operation_model: Any, response_dict: dict[str, Any], **_: Any) -> None:
        name = operation_model.name
        problems = seen.setdefault(name, [])
        if response_dict["status_code"] != 200 or operation_model.output_shape is None:
            return
        body = orjson.loads(response_dict["body"] or b"{}")
        problems += _problems(operation_model.output_shape, body, name)

    sqs.meta.events.register("before-parse.sqs", check)
    return sqs, seen


def test_the_check_finds_unknown_members_and_wrong_types() -> None:
    shape = SQS_MODEL.operation_model("ReceiveMessage").output_shape
    assert shape is not None
    good = {"Messages": [{"MessageId": "m", "Attributes": {"SentTimestamp": "1"}}]}
    assert _problems(shape, good, "R") == []
    assert _problems(shape, {"Messages": [{"Bogus": 1}]}, "R") == [
        "R.Messages[0].Bogus: not in the model"
    ]
    assert _problems(shape, {"Messages": [{"Body": 7}]}, "R") == [
        "R.Messages[0].Body: expected string"
    ]


def test_every_action_of_the_model_is_served() -> None:
    assert set(SQS_MODEL.operation_names) == set(ACTIONS)


def test_every_action_answers_as_the_model_says(
    checked: tuple[Any, dict[str, list[str]]], account_sqs: AccountSqs
) -> None:
    sqs, seen = checked
    dlq = sqs.create_queue(QueueName="c-dlq")["QueueUrl"]
    policy = json.dumps(
        {"deadLetterTargetArn": f"arn:aws:sqs:us-east-1:{ACCOUNT}:c-dlq", "maxReceiveCount": 1}
    )
    url = sqs.create_queue(
        QueueName="c-main", Attributes={"RedrivePolicy": policy}, tags={"team": "core"}
    )["QueueUrl"]
    assert sqs.get_queue_url(QueueName="c-main")["QueueUrl"] == url
    assert len(sqs.list_queues(QueueNamePrefix="c-")["QueueUrls"]) == 2
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "20"})
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert attributes["VisibilityTimeout"] == "20"
    sqs.tag_queue(QueueUrl=url, Tags={"env": "test"})
    sqs.untag_queue(QueueUrl=url, TagKeys=["team"])
    assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"env": "test"}

    sent = sqs.send_message(
        QueueUrl=url,
        MessageBody="one",
        MessageAttributes={"n": {"DataType": "Number", "StringValue": "1"}},
        MessageSystemAttributes={
            "AWSTraceHeader": {"DataType": "String", "StringValue": "Root=1-5759e988-bd862e3fe"}
        },
    )
    assert {"MessageId", "MD5OfMessageBody", "MD5OfMessageAttributes"} <= set(sent)
    assert "MD5OfMessageSystemAttributes" in sent
    batch = sqs.send_message_batch(
        QueueUrl=url, Entries=[{"Id": "a", "MessageBody": "two"}, {"Id": "b", "MessageBody": "3"}]
    )
    assert [e["Id"] for e in batch["Successful"]] == ["a", "b"]
    received = sqs.receive_message(
        QueueUrl=url,
        MaxNumberOfMessages=10,
        MessageSystemAttributeNames=["All"],
        MessageAttributeNames=["All"],
    )["Messages"]
    assert len(received) == 3
    first, second, third = received
    sqs.change_message_visibility(
        QueueUrl=url, ReceiptHandle=first["ReceiptHandle"], VisibilityTimeout=30
    )
    changed = sqs.change_message_visibility_batch(
        QueueUrl=url,
        Entries=[{"Id": "x", "ReceiptHandle": second["ReceiptHandle"], "VisibilityTimeout": 0}],
    )
    assert [e["Id"] for e in changed["Successful"]] == ["x"]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=first["ReceiptHandle"])
    deleted = sqs.delete_message_batch(
        QueueUrl=url, Entries=[{"Id": "y", "ReceiptHandle": third["ReceiptHandle"]}]
    )
    assert [e["Id"] for e in deleted["Successful"]] == ["y"]

    # `second` was made visible again: its next receive moves it to the dead-letter queue.
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    assert sqs.list_dead_letter_source_queues(QueueUrl=dlq)["queueUrls"] == [url]
    dlq_arn = f"arn:aws:sqs:us-east-1:{ACCOUNT}:c-dlq"
    handle = sqs.start_message_move_task(SourceArn=dlq_arn, MaxNumberOfMessagesPerSecond=1)
    # It may have finished first; either way the listing below must conform.
    with contextlib.suppress(sqs.exceptions.ClientError):
        sqs.cancel_message_move_task(TaskHandle=handle["TaskHandle"])
    deadline = time.monotonic() + 10
    while sqs.list_message_move_tasks(SourceArn=dlq_arn)["Results"][0]["Status"] in (
        "RUNNING",
        "CANCELLING",
    ):
        assert time.monotonic() < deadline
        time.sleep(0.05)

    sqs.add_permission(QueueUrl=url, Label="peer", AWSAccountIds=[OTHER], Actions=["SendMessage"])
    account_sqs(OTHER).send_message(QueueUrl=url, MessageBody="from a peer")
    sqs.remove_permission(QueueUrl=url, Label="peer")
    sqs.purge_queue(QueueUrl=url)
    sqs.delete_queue(QueueUrl=url)

    assert set(seen) == set(SQS_MODEL.operation_names), "every action was called"
    problems = [p for found in seen.values() for p in found]
    assert problems == []
