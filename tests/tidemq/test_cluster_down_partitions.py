"""A partition whose node is down, on a local cluster of real processes: a standard
queue's sends go to the partitions that are up, at once, and its receives serve those
meanwhile; a FIFO queue's group keeps its partition; nothing acknowledged is lost once
the killed node's partitions are served again."""

from __future__ import annotations

import os
import signal
import time
from typing import Any

import pytest

from control_plane.assignment import assign
from gateway.core.partitioning import group_partition
from tests.conftest import TidemqProcess, TidemqUp
from tests.tidemq.test_cluster import _restart_node, _sqs, _status, _two_free_ports, _wait_for
from tests.tidemq.test_cluster_partitions import _held_as_assigned

PARTITIONS = 4
SETTINGS = {
    # Long enough that the killed node still holds its leases while the sends below go.
    "TIDEMQ_LEASE_TTL_MS": "4000",
    # Long enough that a send waiting for the killed node's partition would show.
    "TIDEMQ_NODE_REQUEST_TIMEOUT_MS": "20000",
}
# Well within the request timeout: a send or receive that waited for the dead node
# would take the lease TTL at least.
QUICK_S = 2.0


def _spread_queue(cluster: TidemqProcess, sqs: Any, node_ids: set[str]) -> tuple[str, str]:
    """A standard queue whose partitions the assignment spreads over both nodes: its URL
    and stream id."""
    tried: set[str] = set()
    for attempt in range(30):
        url = sqs.create_queue(
            QueueName=f"spread-{attempt}", Attributes={"Partitions": str(PARTITIONS)}
        )["QueueUrl"]
        sqs.receive_message(QueueUrl=url)  # every partition is asked for its end: leased
        # The nodes report what they hold at their heartbeats (a third of the TTL apart),
        # and may still report the queues tried before.
        stream_id = _wait_for(lambda: _new_stream(cluster, tried))
        tried.add(stream_id)
        if {assign(stream_id, p, node_ids) for p in range(PARTITIONS)} == node_ids:
            return url, stream_id
        sqs.delete_queue(QueueUrl=url)
    raise AssertionError("no queue's partitions were spread over both nodes")


def _new_stream(cluster: TidemqProcess, tried: set[str]) -> str | None:
    """The stream the nodes report holding that is not one of `tried`, once reported."""
    held = {p["stream_id"] for node in _status(cluster)["nodes"] for p in node["partitions"]}
    new = held - tried
    assert len(new) <= 1, new
    return new.pop() if new else None


def _timed(call: Any, **kwargs: Any) -> tuple[Any, float]:
    started_s = time.monotonic()
    result = call(**kwargs)
    return result, time.monotonic() - started_s


@pytest.mark.slow
def test_sends_and_receives_pass_over_the_partitions_of_a_killed_node(
    tidemq_up: TidemqUp,
) -> None:
    cluster = tidemq_up(
        port=_two_free_ports(), args=["--nodes", "2", "--gateways", "1"], settings=SETTINGS
    )
    sqs = _sqs(cluster, 1)
    node_ids = {n["id"] for n in _status(cluster)["nodes"]}
    url, stream_id = _spread_queue(cluster, sqs, node_ids)
    holders = _wait_for(lambda: _held_as_assigned(cluster, stream_id, PARTITIONS, node_ids))
    before = [f"before {i}" for i in range(20)]
    for body in before:
        sqs.send_message(QueueUrl=url, MessageBody=body)
    fifo_url = sqs.create_queue(
        QueueName="groups.fifo",
        Attributes={"FifoQueue": "true", "Partitions": str(PARTITIONS)},
    )["QueueUrl"]

    victim = next(n for n in _status(cluster)["nodes"] if n["partitions"])
    victim_partitions = {p for p, (node, _) in holders.items() if node == victim["id"]}
    assert 0 < len(victim_partitions) < PARTITIONS
    os.kill(victim["pid"], signal.SIGKILL)

    # Sends: each answered at once, by a partition that is up.
    after = [f"after {i}" for i in range(20)]
    for body in after:
        _, took_s = _timed(sqs.send_message, QueueUrl=url, MessageBody=body)
        assert took_s < QUICK_S, f"a send waited {took_s:.2f} s"
    # Receives: served by the partitions that are up, each answered at once. The
    # messages sent after the kill all went there; so did some of those before.
    received: list[str] = []
    deadline_s = time.monotonic() + 10
    while not set(after) <= set(received) and time.monotonic() < deadline_s:
        got, took_s = _timed(
            sqs.receive_message, QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0
        )
        assert took_s < QUICK_S, f"a receive waited {took_s:.2f} s"
        for message in got.get("Messages", []):
            received.append(message["Body"])
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    assert set(after) <= set(received)
    assert len(received) < len(before) + len(after)  # the killed node's part is away

    # A FIFO group keeps its partition, the killed node's or not: it waits for it.
    for group in ("a", "b", "c", "d", "e", "f"):
        sent = sqs.send_message(
            QueueUrl=fifo_url, MessageBody=group, MessageGroupId=group, MessageDeduplicationId=group
        )
        assert int(sent["SequenceNumber"]) % PARTITIONS == group_partition(group, PARTITIONS)

    # The node back with its disk: every acknowledged message is delivered, once.
    restarted = _restart_node(cluster, victim["pid"])
    try:
        deadline_s = time.monotonic() + 25
        while len(received) < len(before) + len(after) and time.monotonic() < deadline_s:
            got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1)
            for message in got.get("Messages", []):
                received.append(message["Body"])
                sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    finally:
        restarted.terminate()
        restarted.wait(timeout=30)
    assert sorted(received) == sorted(before + after)
    assert cluster.stop() == 0
