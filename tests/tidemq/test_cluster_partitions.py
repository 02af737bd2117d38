"""Partitioned queues on a local cluster of real processes: a 4-partition queue spread
over 3 nodes, used through both gateways; and a node joining a running cluster, to which
exactly the partitions rendezvous hashing now assigns it move, with every acknowledged
message still delivered."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from control_plane.assignment import assign
from tests.conftest import TidemqProcess, TidemqUp, _read_banner, _reap
from tests.tidemq.test_cluster import (
    CLUSTER_SETTINGS,
    _receive_all,
    _sqs,
    _status,
    _two_free_ports,
    _wait_for,
)

Holders = dict[int, tuple[str, int]]  # partition -> (node id, lease epoch)


def _holders(cluster: TidemqProcess, stream_id: str) -> Holders:
    return {
        p["partition"]: (node["id"], p["epoch"])
        for node in _status(cluster)["nodes"]
        for p in node["partitions"]
        if p["stream_id"] == stream_id
    }


def _stream_id(cluster: TidemqProcess) -> str:
    """The one stream whose partitions the cluster's nodes hold."""
    streams = {p["stream_id"] for node in _status(cluster)["nodes"] for p in node["partitions"]}
    assert len(streams) == 1, streams
    return streams.pop()


def _held_as_assigned(
    cluster: TidemqProcess, stream_id: str, partitions: int, node_ids: set[str]
) -> Holders | None:
    """The holders, once every partition is held by the node the assignment names."""
    holders = _holders(cluster, stream_id)
    wanted = {p: assign(stream_id, p, node_ids) for p in range(partitions)}
    if {p: node for p, (node, _) in holders.items()} == wanted:
        return holders
    return None


def test_a_partitioned_queue_is_served_by_every_node_through_both_gateways(
    tidemq_up: TidemqUp,
) -> None:
    cluster = tidemq_up(
        port=_two_free_ports(), args=["--nodes", "3", "--gateways", "2"], settings=CLUSTER_SETTINGS
    )
    one, two = _sqs(cluster, 1), _sqs(cluster, 2)
    node_ids = {n["id"] for n in _status(cluster)["nodes"]}
    # A queue whose 4 partitions the assignment spreads over all three nodes (a stream
    # id is random: about 4 in 9 are).
    for attempt in range(30):
        url = one.create_queue(QueueName=f"wide-{attempt}", Attributes={"Partitions": "4"})[
            "QueueUrl"
        ]
        one.receive_message(QueueUrl=url)  # every partition is asked for its end: leased
        stream_id = _stream_id(cluster)
        if {assign(stream_id, p, node_ids) for p in range(4)} == node_ids:
            break
        one.delete_queue(QueueUrl=url)
        _wait_for(lambda: None if any(n["partitions"] for n in _status(cluster)["nodes"]) else 1)
    else:
        raise AssertionError("no queue's partitions were spread over the three nodes")
    sent = set()
    for i in range(20):
        sender = (one, two)[i % 2]
        entries = [{"Id": str(j), "MessageBody": f"m{i}-{j}"} for j in range(3)]
        assert len(sender.send_message_batch(QueueUrl=url, Entries=entries)["Successful"]) == 3
        sent |= {e["MessageBody"] for e in entries}
    holders = _wait_for(lambda: _held_as_assigned(cluster, stream_id, 4, node_ids))
    assert {node for node, _ in holders.values()} == node_ids  # each node owns some
    half = _receive_all(two, url, 30)
    rest = _receive_all(one, url, 30)
    assert sorted(half + rest) == sorted(sent)
    attributes = two.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert (attributes["Partitions"], attributes["ApproximateNumberOfMessages"]) == ("4", "0")
    assert cluster.stop() == 0


def _given_to(node_id: str, stream_id: str, partitions: int, others: set[str]) -> set[int]:
    """The partitions the assignment gives `node_id` once it joins `others`."""
    members = others | {node_id}
    return {p for p in range(partitions) if assign(stream_id, p, members) == node_id}


def _start_node(cluster: TidemqProcess, data_dir: Path, node_id: str) -> TidemqProcess:
    """One more `tidemq node` for the cluster: its Redis and its archive."""
    redis_url = cluster.banner["redis"].split()[0]
    env = {
        **os.environ,
        **CLUSTER_SETTINGS,
        "TIDEMQ_REDIS_URL": redis_url,
        "TIDEMQ_ARCHIVE_URL": str(Path(cluster.banner["data dir"]) / "archive"),
        "TIDEMQ_DATA_DIR": str(data_dir),
        "TIDEMQ_NODE_PORT": "0",
        # Its HTTP (/healthz, /metrics) on a free port too, not `tidemq node`'s default
        # 9401, which two tests run side by side (or anything else here) may hold.
        "TIDEMQ_PORT": "0",
        "TIDEMQ_NODE_ID": node_id,
        "PYTHONUNBUFFERED": "1",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "tidemq.cli", "node"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    node = TidemqProcess(process)
    try:
        # A node's banner has an endpoint too (its own): tidemq up's reader serves.
        node.banner = _read_banner(node, timeout_s=60)
    except BaseException:
        _reap(node)
        raise
    node.read_on()
    return node


@pytest.mark.slow
def test_a_joining_node_takes_only_the_partitions_assigned_to_it(
    tidemq_up: TidemqUp, tmp_path: Path
) -> None:
    cluster = tidemq_up(
        port=_two_free_ports(), args=["--nodes", "2", "--gateways", "2"], settings=CLUSTER_SETTINGS
    )
    one, two = _sqs(cluster, 1), _sqs(cluster, 2)
    url = one.create_queue(QueueName="moving", Attributes={"Partitions": "8"})["QueueUrl"]
    one.receive_message(QueueUrl=url)  # leases every partition
    stream_id = _stream_id(cluster)
    before_ids = {n["id"] for n in _status(cluster)["nodes"]}
    before = _wait_for(lambda: _held_as_assigned(cluster, stream_id, 8, before_ids))

    acknowledged: list[str] = []
    stop = threading.Event()

    def send() -> None:
        i = 0
        while not stop.is_set():
            body = f"m{i}"
            sender = (one, two)[i % 2]
            sender.send_message(QueueUrl=url, MessageBody=body)
            acknowledged.append(body)  # only once the gateway answered
            i += 1

    # A name the assignment gives some of the 8 partitions to (a made-up one gets none
    # once in 26 starts).
    new_id, moving = next(
        (node_id, moving)
        for node_id in (f"node-joining-{n}" for n in range(100))
        if (moving := _given_to(node_id, stream_id, 8, before_ids))
    )
    after_ids = before_ids | {new_id}
    sender = threading.Thread(target=send)
    sender.start()
    joined = _start_node(cluster, tmp_path / "node-3", new_id)
    try:
        assert joined.banner["node id"] == new_id

        def moved() -> Holders | None:
            one.receive_message(QueueUrl=url, VisibilityTimeout=0)  # asks every partition
            return _held_as_assigned(cluster, stream_id, 8, after_ids)

        after = _wait_for(moved, timeout_s=30)
        stop.set()
        sender.join(timeout=30)
        assert not sender.is_alive()
        for partition in range(8):
            if partition in moving:
                assert after[partition][0] == new_id
                assert after[partition][1] > before[partition][1]  # a new tenure
            else:  # not moved: the same node, in the same tenure
                assert after[partition] == before[partition], partition
        assert len(acknowledged) > 0
        received = _receive_all(two, url, len(acknowledged))
        assert set(received) == set(acknowledged)  # none lost (a repeat would be allowed)
        assert joined.stop(signal.SIGTERM) == 0
    finally:
        stop.set()
        _reap(joined)
    assert cluster.stop() == 0
