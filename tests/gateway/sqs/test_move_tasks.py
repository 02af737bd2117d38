"""Message move tasks (dead-letter queue redrive) through boto3."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from botocore.exceptions import ClientError

ACCOUNT = "123456789012"


def _arn(name: str) -> str:
    return f"arn:aws:sqs:us-east-1:{ACCOUNT}:{name}"


def _dead_letters(sqs: Any, bodies: list[str], source: str = "src", dlq: str = "dlq") -> str:
    """Creates source and dead-letter queues and drives `bodies` into the latter."""
    sqs.create_queue(QueueName=dlq)
    policy = json.dumps({"deadLetterTargetArn": _arn(dlq), "maxReceiveCount": 1})
    url = sqs.create_queue(QueueName=source, Attributes={"RedrivePolicy": policy})["QueueUrl"]
    for body in bodies:
        sqs.send_message(QueueUrl=url, MessageBody=body)
    for _ in bodies:
        sqs.receive_message(QueueUrl=url, VisibilityTimeout=0)
    assert "Messages" not in sqs.receive_message(QueueUrl=url)  # the rest moved out
    return str(url)


def _wait_until_finished(sqs: Any, source_arn: str) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        [task] = sqs.list_message_move_tasks(SourceArn=source_arn)["Results"]
        if task["Status"] not in ("RUNNING", "CANCELLING"):
            return dict(task)
        time.sleep(0.05)
    raise AssertionError("the move task did not finish")


def _bodies(sqs: Any, url: str) -> list[str]:
    messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)
    return sorted(m["Body"] for m in messages.get("Messages", []))


def test_dead_letters_go_back_to_their_source(sqs: Any) -> None:
    src = _dead_letters(sqs, ["a", "b", "c"])
    dlq = sqs.get_queue_url(QueueName="dlq")["QueueUrl"]
    handle = sqs.start_message_move_task(SourceArn=_arn("dlq"))["TaskHandle"]
    task = _wait_until_finished(sqs, _arn("dlq"))
    assert task["Status"] == "COMPLETED"
    assert (
        task["ApproximateNumberOfMessagesMoved"],
        task["ApproximateNumberOfMessagesToMove"],
    ) == (3, 3)
    assert handle
    assert "TaskHandle" not in task  # only running tasks show theirs
    assert _bodies(sqs, src) == ["a", "b", "c"]
    assert _bodies(sqs, dlq) == []


def test_dead_letters_go_to_a_given_destination_at_a_given_rate(sqs: Any) -> None:
    _dead_letters(sqs, ["x", "y"])
    other = sqs.create_queue(QueueName="elsewhere")["QueueUrl"]
    sqs.start_message_move_task(
        SourceArn=_arn("dlq"), DestinationArn=_arn("elsewhere"), MaxNumberOfMessagesPerSecond=5
    )
    task = _wait_until_finished(sqs, _arn("dlq"))
    assert (task["Status"], task["MaxNumberOfMessagesPerSecond"]) == ("COMPLETED", 5)
    assert task["DestinationArn"] == _arn("elsewhere")
    assert _bodies(sqs, other) == ["x", "y"]


def test_a_task_can_be_cancelled_and_only_one_runs_at_a_time(sqs: Any) -> None:
    _dead_letters(sqs, [str(i) for i in range(6)])
    handle = sqs.start_message_move_task(SourceArn=_arn("dlq"), MaxNumberOfMessagesPerSecond=1)[
        "TaskHandle"
    ]
    with pytest.raises(ClientError, match="already a task running"):
        sqs.start_message_move_task(SourceArn=_arn("dlq"))
    sqs.cancel_message_move_task(TaskHandle=handle)
    task = _wait_until_finished(sqs, _arn("dlq"))
    assert task["Status"] == "CANCELLED"
    assert task["ApproximateNumberOfMessagesMoved"] < 6
    with pytest.raises(ClientError, match="Only active tasks"):
        sqs.cancel_message_move_task(TaskHandle=handle)


def test_bad_move_tasks_are_refused(sqs: Any) -> None:
    sqs.create_queue(QueueName="plain")
    with pytest.raises(ClientError, match="configured as a Dead Letter Queue"):
        sqs.start_message_move_task(SourceArn=_arn("plain"))
    with pytest.raises(sqs.exceptions.QueueDoesNotExist):
        sqs.start_message_move_task(SourceArn=_arn("absent"))
    with pytest.raises(ClientError, match="is invalid"):
        sqs.start_message_move_task(SourceArn="not-an-arn")
    with pytest.raises(sqs.exceptions.ResourceNotFoundException):
        sqs.cancel_message_move_task(TaskHandle="bm90LWEtdGFzaw")
    assert sqs.list_message_move_tasks(SourceArn=_arn("plain"))["Results"] == []
