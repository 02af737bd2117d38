"""Queues of several partitions through boto3: the attribute, spreading sends, receiving
from every partition, FIFO groups, purge, dead letters and their redrive."""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from typing import Any

import orjson
import pytest
import redis
from botocore.exceptions import ClientError

from control_plane import redis_keys
from control_plane.redis_keys import SubscriptionKeys
from tests.conftest import TEST_ACCOUNT_ID, RunningGateway


def _cursors(gateway: RunningGateway, name: str) -> dict[int, int]:
    """The queue's cursors (partition -> next offset never delivered), from its Redis."""
    client = redis.Redis.from_url(gateway.redis_url)
    try:
        stream_id = client.hget(redis_keys.queue_metadata(TEST_ACCOUNT_ID, name), "stream_id")
        assert stream_id is not None
        raw = client.hgetall(SubscriptionKeys(stream_id.decode()).cursors)
    finally:
        client.close()
    return {int(p): int(o) for p, o in raw.items()}


def _drain(sqs: Any, url: str, expected: int) -> list[dict[str, Any]]:
    """Receives (and deletes) until `expected` messages came, or a receive came back empty."""
    received: list[dict[str, Any]] = []
    while len(received) < expected:
        batch = sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1, AttributeNames=["All"]
        ).get("Messages", [])
        if not batch:
            break
        received += batch
        sqs.delete_message_batch(
            QueueUrl=url,
            Entries=[
                {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(batch)
            ],
        )
    return received


def test_partitions_is_an_attribute_fixed_at_creation(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="wide", Attributes={"Partitions": "4"})["QueueUrl"]
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert attributes["Partitions"] == "4"
    named = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["Partitions"])
    assert named["Attributes"] == {"Partitions": "4"}
    plain = sqs.create_queue(QueueName="plain")["QueueUrl"]
    assert sqs.get_queue_attributes(QueueUrl=plain, AttributeNames=["Partitions"])[
        "Attributes"
    ] == {"Partitions": "1"}
    # Creating it again: the same count is the same queue, another is a conflict.
    assert sqs.create_queue(QueueName="wide", Attributes={"Partitions": "4"})["QueueUrl"] == url
    with pytest.raises(ClientError) as exists:
        sqs.create_queue(QueueName="wide", Attributes={"Partitions": "2"})
    assert exists.value.response["Error"]["Code"] == "QueueAlreadyExists"
    # Setting it to what it is changes nothing; to anything else is refused, with nothing
    # else of the request applied.
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"Partitions": "4"})
    with pytest.raises(ClientError) as changed:
        sqs.set_queue_attributes(
            QueueUrl=url, Attributes={"Partitions": "8", "VisibilityTimeout": "5"}
        )
    error = changed.value.response["Error"]
    assert error["Code"] == "InvalidAttributeValue"
    assert "Partitions" in error["Message"]
    assert changed.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    after = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert (after["Partitions"], after["VisibilityTimeout"]) == ("4", "30")


@pytest.mark.parametrize("value", ["0", "65", "many", "2.0", "-3"])
def test_a_partition_count_out_of_range_is_refused(sqs: Any, value: str) -> None:
    with pytest.raises(ClientError) as refused:
        sqs.create_queue(QueueName="bad", Attributes={"Partitions": value})
    assert refused.value.response["Error"]["Code"] == "InvalidAttributeValue"
    assert "from 1 to 64" in refused.value.response["Error"]["Message"]
    assert sqs.list_queues().get("QueueUrls", []) == []


def test_sends_spread_over_the_partitions_and_all_are_received(
    sqs: Any, gateway: RunningGateway
) -> None:
    url = sqs.create_queue(QueueName="spread", Attributes={"Partitions": "4"})["QueueUrl"]
    sent = set()
    for i in range(40):
        entries = [{"Id": str(j), "MessageBody": f"m{i}-{j}"} for j in range(3)]
        assert not sqs.send_message_batch(QueueUrl=url, Entries=entries).get("Failed")
        sent |= {e["MessageBody"] for e in entries}
    counts = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])[
        "Attributes"
    ]
    assert counts["ApproximateNumberOfMessages"] == "120"
    received = _drain(sqs, url, len(sent))
    assert sorted(m["Body"] for m in received) == sorted(sent)  # each once
    cursors = _cursors(gateway, "spread")
    assert sum(cursors.values()) == 120
    # 40 batches to one of 4 partitions at random: all in fewer than 3 has odds ~1e-12.
    assert len([p for p, end in cursors.items() if end > 0]) >= 3
    assert all(end % 3 == 0 for end in cursors.values())  # a batch stays in one partition
    assert "Messages" not in sqs.receive_message(QueueUrl=url)


def test_a_long_poll_wakes_for_a_send_to_any_partition(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="poll", Attributes={"Partitions": "8"})["QueueUrl"]
    for round_ in range(4):
        got: list[dict[str, Any]] = []

        def receive(into: list[dict[str, Any]] = got) -> None:
            into.extend(sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20).get("Messages", []))

        poll = threading.Thread(target=receive)
        poll.start()
        time.sleep(0.3)  # the poll is waiting
        sqs.send_message(QueueUrl=url, MessageBody=f"wake {round_}")
        poll.join(timeout=25)
        assert [m["Body"] for m in got] == [f"wake {round_}"]
        sqs.delete_message(QueueUrl=url, ReceiptHandle=got[0]["ReceiptHandle"])


def test_fifo_groups_keep_their_order_across_partitions(sqs: Any, gateway: RunningGateway) -> None:
    url = sqs.create_queue(
        QueueName="orders.fifo",
        Attributes={"FifoQueue": "true", "Partitions": "4", "ContentBasedDeduplication": "true"},
    )["QueueUrl"]
    groups = [f"g{i}" for i in range(8)]
    sent_sequences: dict[str, list[int]] = defaultdict(list)
    for n in range(5):
        # One batch with every group: one append per partition the groups map to.
        entries = [{"Id": g, "MessageBody": f"{g}:{n}", "MessageGroupId": g} for g in groups]
        result = sqs.send_message_batch(QueueUrl=url, Entries=entries)
        assert not result.get("Failed")
        for ok in result["Successful"]:
            sent_sequences[ok["Id"]].append(int(ok["SequenceNumber"]))
    duplicate = sqs.send_message(QueueUrl=url, MessageBody="g3:0", MessageGroupId="g3")
    assert int(duplicate["SequenceNumber"]) == sent_sequences["g3"][0]
    every = [s for sequences in sent_sequences.values() for s in sequences]
    assert len(set(every)) == 40  # unique in the queue
    assert all(s == sorted(s) for s in sent_sequences.values())  # rising within a group
    received = _drain(sqs, url, 40)
    by_group: dict[str, list[str]] = defaultdict(list)
    for message in received:
        group = message["Attributes"]["MessageGroupId"]
        by_group[group].append(message["Body"])
        body_group, n = message["Body"].split(":")
        assert body_group == group
        assert int(message["Attributes"]["SequenceNumber"]) == sent_sequences[group][int(n)]
    assert by_group == {g: [f"{g}:{n}" for n in range(5)] for g in groups}
    cursors = _cursors(gateway, "orders.fifo")
    assert sum(cursors.values()) == 40
    assert all(end % 5 == 0 for end in cursors.values())  # a group in one partition
    assert len([end for end in cursors.values() if end]) >= 2  # 8 groups over 4 partitions


def test_purge_empties_every_partition(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="purged", Attributes={"Partitions": "3"})["QueueUrl"]
    for i in range(12):
        sqs.send_message(QueueUrl=url, MessageBody=f"old {i}")
    sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=2)  # some in flight too
    sqs.purge_queue(QueueUrl=url)
    sqs.send_message(QueueUrl=url, MessageBody="new")
    assert [m["Body"] for m in _drain(sqs, url, 5)] == ["new"]


def test_dead_letters_and_their_redrive_with_partitions(sqs: Any) -> None:
    dlq = sqs.create_queue(QueueName="dlq", Attributes={"Partitions": "2"})["QueueUrl"]
    dlq_arn = f"arn:aws:sqs:us-east-1:{TEST_ACCOUNT_ID}:dlq"
    policy = orjson.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 1}).decode()
    url = sqs.create_queue(
        QueueName="work",
        Attributes={"Partitions": "3", "RedrivePolicy": policy, "VisibilityTimeout": "0"},
    )["QueueUrl"]
    bodies = {f"m{i}" for i in range(9)}
    for body in sorted(bodies):
        sqs.send_message(QueueUrl=url, MessageBody=body)
    seen: set[str] = set()
    for _ in range(20):  # each received once, then dead-lettered by the next receive
        batch = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        seen |= {m["Body"] for m in batch}
        if not batch and seen == bodies:
            break
    assert seen == bodies
    dead = {
        m["Body"]: m["Attributes"]["DeadLetterQueueSourceArn"]
        for m in _peek_all(sqs, dlq, len(bodies))
    }
    assert set(dead) == bodies
    assert set(dead.values()) == {f"arn:aws:sqs:us-east-1:{TEST_ACCOUNT_ID}:work"}
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "30"})
    sqs.start_message_move_task(SourceArn=dlq_arn)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        [task] = sqs.list_message_move_tasks(SourceArn=dlq_arn)["Results"]
        if task["Status"] != "RUNNING":
            break
        time.sleep(0.2)
    assert (task["Status"], task["ApproximateNumberOfMessagesMoved"]) == ("COMPLETED", 9)
    assert sorted(m["Body"] for m in _drain(sqs, url, len(bodies))) == sorted(bodies)


def _peek_all(sqs: Any, url: str, expected: int) -> list[dict[str, Any]]:
    """Receives up to `expected` messages with a visibility timeout of 0 (they stay)."""
    found: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + 15
    while len(found) < expected and time.monotonic() < deadline:
        for message in sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=0, AttributeNames=["All"]
        ).get("Messages", []):
            found[message["MessageId"]] = message
    return list(found.values())
