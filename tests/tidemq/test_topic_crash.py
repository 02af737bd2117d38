"""A crash while publishing to a topic loses nothing: `tidemq up` is SIGKILLed while
publishers run, restarted on the same data, and every acknowledged publish reaches every
subscription whose filter policy matches it (at least once)."""

from __future__ import annotations

import json
import signal
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TidemqUp, free_port

SUBSCRIPTIONS = {
    # queue name -> filter policy (None: everything)
    "all-a": None,
    "all-b": None,
    "even": {"parity": ["even"]},
    "odd": {"parity": ["odd"]},
    "big": {"n": [{"numeric": [">=", 100]}]},
}
PUBLISHERS = 4
PUBLISH_BEFORE_KILL = 400


def _matches(policy: dict[str, Any] | None, n: int) -> bool:
    if policy is None:
        return True
    if "parity" in policy:
        return ("even" if n % 2 == 0 else "odd") in policy["parity"]
    return n >= 100


@pytest.mark.slow
def test_every_acknowledged_publish_reaches_every_matching_subscription(
    tidemq_up: TidemqUp, tmp_path: Path
) -> None:
    data_dir, port = tmp_path / "data", free_port()
    up = tidemq_up(data_dir, port)
    sns, sqs = up.sns_client(), up.sqs_client()
    topic = sns.create_topic(Name="crashy")["TopicArn"]
    urls = {}
    for name, policy in SUBSCRIPTIONS.items():
        urls[name] = sqs.create_queue(QueueName=name)["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=urls[name], AttributeNames=["QueueArn"])[
            "Attributes"
        ]["QueueArn"]
        attributes = {"RawMessageDelivery": "true"}
        if policy is not None:
            attributes["FilterPolicy"] = json.dumps(policy)
        sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes=attributes)

    acknowledged: set[int] = set()
    lock = threading.Lock()
    stop = threading.Event()

    def publish(worker: int) -> None:
        client = up.sns_client()
        n = worker
        while not stop.is_set():
            try:
                client.publish(
                    TopicArn=topic,
                    Message=str(n),
                    MessageAttributes={
                        "parity": {"DataType": "String", "StringValue": "odd" if n % 2 else "even"},
                        "n": {"DataType": "Number", "StringValue": str(n)},
                    },
                )
            except Exception:
                return
            with lock:
                acknowledged.add(n)
            n += PUBLISHERS

    threads = [threading.Thread(target=publish, args=(w,)) for w in range(PUBLISHERS)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 60
    while len(acknowledged) < PUBLISH_BEFORE_KILL and time.monotonic() < deadline:
        time.sleep(0.01)
    up.stop(signal.SIGKILL)
    stop.set()
    for thread in threads:
        thread.join(timeout=30)
    assert len(acknowledged) >= PUBLISH_BEFORE_KILL

    restarted = tidemq_up(data_dir, port)
    sqs = restarted.sqs_client()
    for name, policy in SUBSCRIPTIONS.items():
        wanted = {n for n in acknowledged if _matches(policy, n)}
        got: defaultdict[int, int] = defaultdict(int)
        deadline = time.monotonic() + 60
        while not wanted <= set(got) and time.monotonic() < deadline:
            for message in sqs.receive_message(
                QueueUrl=urls[name], MaxNumberOfMessages=10, WaitTimeSeconds=1
            ).get("Messages", []):
                got[int(message["Body"])] += 1
                sqs.delete_message(QueueUrl=urls[name], ReceiptHandle=message["ReceiptHandle"])
        missing = wanted - set(got)
        assert not missing, f"{name}: {len(missing)} acknowledged publishes never arrived"
        assert all(_matches(policy, n) for n in got), f"{name}: got unmatched messages"
