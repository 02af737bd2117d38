"""A local cluster of real processes on loopback: `tidemq up --nodes 3 --gateways 2`, used
through boto3 and `tidemq cluster status`, with nodes stopped and terminated by signal."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from botocore.config import Config

from storage_nodes.node import NotOwner, RecordIn
from storage_nodes.wire.client import NodeClient
from tests.conftest import TidemqProcess, TidemqUp, sqs_client

T = TypeVar("T")
LEASE_TTL_MS = 1_500
CLUSTER_SETTINGS = {
    "TIDEMQ_LEASE_TTL_MS": str(LEASE_TTL_MS),
    # A request waits this long for a partition's new owner before it is answered 503.
    "TIDEMQ_NODE_REQUEST_TIMEOUT_MS": "3000",
}


def _start_cluster(tidemq_up: TidemqUp) -> TidemqProcess:
    return tidemq_up(
        port=_two_free_ports(), args=["--nodes", "3", "--gateways", "2"], settings=CLUSTER_SETTINGS
    )


def _two_free_ports() -> int:
    """A free port whose next one is free too, for the gateways: below Linux's ephemeral
    range (32768 up), from which Redis and the nodes get theirs while the test runs."""
    for _ in range(100):
        port = random.randrange(20_000, 32_000)
        try:
            with socket.socket() as first, socket.socket() as second:
                first.bind(("127.0.0.1", port))
                second.bind(("127.0.0.1", port + 1))
        except OSError:
            continue
        return port
    raise AssertionError("no two consecutive free ports")


def _sqs(cluster: TidemqProcess, gateway: int) -> Any:
    return sqs_client(
        cluster.banner[f"gateway {gateway}"],
        access_key_id=cluster.banner["access key id"],
        secret_access_key=cluster.banner["secret access key"],
        config=Config(retries={"max_attempts": 6, "mode": "standard"}),
    )


def _status(cluster: TidemqProcess) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-m", "tidemq.cli", "cluster", "status", "--json"],
        env={**os.environ, "TIDEMQ_DATA_DIR": cluster.banner["data dir"]},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    status: dict[str, Any] = json.loads(result.stdout)
    return status


def _wait_for(find: Callable[[], T | None], timeout_s: float = 15) -> T:
    deadline = time.monotonic() + timeout_s
    while True:
        found = find()
        if found is not None:
            return found
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def _owner(cluster: TidemqProcess, *, other_than: int | None = None) -> dict[str, Any]:
    """The node reporting the one partition of the cluster's one queue."""

    def find() -> dict[str, Any] | None:
        owners = [n for n in _status(cluster)["nodes"] if n["partitions"]]
        if len(owners) == 1 and owners[0]["pid"] != other_than:
            return owners[0]
        return None

    return _wait_for(find)


def _log_bytes(cluster: TidemqProcess, pid: int) -> dict[str, int]:
    """The sizes of the segment files of the node process `pid`, by path."""
    number = next(
        key.split()[1] for key, value in cluster.banner.items()
        if key.startswith("node ") and value.endswith(f"(pid {pid})")
    )  # fmt: skip
    streams = Path(cluster.banner["data dir"]) / "nodes" / number / "node" / "streams"
    return {str(p): p.stat().st_size for p in streams.rglob("*.log")}


def _receive_all(sqs: Any, url: str, count: int) -> list[str]:
    bodies: list[str] = []
    deadline = time.monotonic() + 15
    while len(bodies) < count and time.monotonic() < deadline:
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1)
        for message in got.get("Messages", []):
            bodies.append(message["Body"])
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    return sorted(bodies)


def test_publish_and_consume_through_either_gateway(tidemq_up: TidemqUp) -> None:
    cluster = _start_cluster(tidemq_up)
    one, two = _sqs(cluster, 1), _sqs(cluster, 2)
    for sender, receiver, name in ((one, two, "orders"), (two, one, "invoices")):
        url = sender.create_queue(QueueName=name)["QueueUrl"]
        entries = [{"Id": str(i), "MessageBody": f"{name} {i}"} for i in range(5)]
        assert len(sender.send_message_batch(QueueUrl=url, Entries=entries)["Successful"]) == 5
        sender.send_message(QueueUrl=url, MessageBody=f"{name} 5")
        found = receiver.get_queue_url(QueueName=name)["QueueUrl"]
        assert _receive_all(receiver, found, 6) == [f"{name} {i}" for i in range(6)]
        assert "Messages" not in receiver.receive_message(QueueUrl=found, WaitTimeSeconds=0)

    status = _status(cluster)
    assert len(status["nodes"]) == 3
    assert {n["pid"] for n in status["nodes"]} == {
        int(value.rsplit("pid ", 1)[1].rstrip(")"))
        for key, value in cluster.banner.items()
        if key.startswith("node ")
    }
    assert all(n["address"].startswith("127.0.0.1:") for n in status["nodes"])
    for key, value in cluster.banner.items():
        if key.startswith("node "):  # "<node protocol address>, <http url> (pid <pid>)"
            http = value.split(", ", 1)[1].split()[0]
            assert httpx.get(f"{http}/readyz").json() == {"status": "ok"}
    partitions = [p for n in status["nodes"] for p in n["partitions"]]
    assert len(partitions) == 2  # one per queue, each held by one node
    assert {p["partition"] for p in partitions} == {0}
    assert all(p["epoch"] >= 1 for p in partitions)
    gateways = sorted(g["address"] for g in status["gateways"])
    assert gateways == sorted([cluster.banner["gateway 1"], cluster.banner["gateway 2"]])
    assert all(isinstance(g["pid"], int) for g in status["gateways"])
    assert cluster.stop() == 0


@pytest.mark.slow
def test_a_node_stopped_past_its_lease_refuses_appends_when_it_runs_again(
    tidemq_up: TidemqUp,
) -> None:
    cluster = _start_cluster(tidemq_up)
    sqs = _sqs(cluster, 1)
    url = sqs.create_queue(QueueName="fenced")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="before")
    owner = _owner(cluster)
    (held,) = owner["partitions"]
    written = _log_bytes(cluster, owner["pid"])
    assert sum(written.values()) > 0

    os.kill(owner["pid"], signal.SIGSTOP)
    try:
        time.sleep(LEASE_TTL_MS / 1000 + 0.5)
        # Another node takes the partition; the gateway gets there once it gives up on
        # the stopped one (the SDK retries a 503).
        sqs.send_message(QueueUrl=url, MessageBody="while stopped")
        successor = _owner(cluster, other_than=owner["pid"])
        assert successor["partitions"][0]["epoch"] > held["epoch"]
    finally:
        os.kill(owner["pid"], signal.SIGCONT)

    async def append_to_the_old_owner(epoch: int) -> None:
        client = NodeClient(owner["address"])
        try:
            record = RecordIn("m-late", int(time.time() * 1000), b"late")
            await client.append(held["stream_id"], 0, [record], epoch=epoch)
        finally:
            await client.close()

    for epoch in (held["epoch"], 0):  # its own old tenure, or any
        with pytest.raises(NotOwner):
            asyncio.run(append_to_the_old_owner(epoch))
    # Nothing written (its old log may be gone: once the successor has listed its tail
    # in the archive, the old copy is deleted).
    after = _log_bytes(cluster, owner["pid"])
    assert all(written.get(path) == size for path, size in after.items())
    assert cluster.stop() == 0


@pytest.mark.slow
def test_sigterm_hands_the_partitions_over_with_their_messages(tidemq_up: TidemqUp) -> None:
    cluster = _start_cluster(tidemq_up)
    one, two = _sqs(cluster, 1), _sqs(cluster, 2)
    url = one.create_queue(QueueName="handed")["QueueUrl"]
    for i in range(5):
        one.send_message(QueueUrl=url, MessageBody=f"before {i}")
    owner = _owner(cluster)
    os.kill(owner["pid"], signal.SIGTERM)
    _wait_for(lambda: None if owner["pid"] in {n["pid"] for n in _status(cluster)["nodes"]} else 1)

    for i in range(3):
        two.send_message(QueueUrl=url, MessageBody=f"after {i}")
    successor = _owner(cluster, other_than=owner["pid"])
    (partition,) = successor["partitions"]
    assert partition["epoch"] == owner["partitions"][0]["epoch"] + 1
    expected = sorted([f"before {i}" for i in range(5)] + [f"after {i}" for i in range(3)])
    assert _receive_all(one, url, 8) == expected
    assert len(_status(cluster)["nodes"]) == 2
    assert cluster.stop() == 0


def _restart_node(cluster: TidemqProcess, pid: int) -> subprocess.Popen[str]:
    """`tidemq node` again on the data directory of the node process `pid` (which is
    gone), as an operator would after a crash: a new process, the same disk."""
    number = next(
        key.split()[1] for key, value in cluster.banner.items()
        if key.startswith("node ") and value.endswith(f"(pid {pid})")
    )  # fmt: skip
    data_dir = Path(cluster.banner["data dir"])
    env = {
        **os.environ,
        **CLUSTER_SETTINGS,
        "TIDEMQ_REDIS_URL": cluster.banner["redis"],
        "TIDEMQ_ARCHIVE_URL": str(data_dir / "archive"),
        "TIDEMQ_DATA_DIR": str(data_dir / "nodes" / number),
        "TIDEMQ_NODE_PORT": "0",
        # Its HTTP (/healthz, /metrics) on a free port too, not `tidemq node`'s default
        # 9401, which two tests run side by side (or anything else here) may hold.
        "TIDEMQ_PORT": "0",
    }
    with (data_dir / f"restarted-node-{number}.log").open("w") as errors:
        return subprocess.Popen(
            [sys.executable, "-m", "tidemq.cli", "node"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            text=True,
        )


@pytest.mark.slow
def test_sigkill_of_the_owner_loses_nothing_once_it_returns(tidemq_up: TidemqUp) -> None:
    """Replication `none`: the killed node's un-archived tail is unavailable (neither
    delivered empty nor deleted) until the node comes back with its disk; every message
    acknowledged before the kill is delivered then, and new ones meanwhile."""
    cluster = _start_cluster(tidemq_up)
    one, two = _sqs(cluster, 1), _sqs(cluster, 2)
    url = one.create_queue(QueueName="killed")["QueueUrl"]
    before = [f"before {i}" for i in range(20)]
    for body in before:
        one.send_message(QueueUrl=url, MessageBody=body)
    owner = _owner(cluster)
    os.kill(owner["pid"], signal.SIGKILL)
    killed_s = time.monotonic()
    two.send_message(QueueUrl=url, MessageBody="after 0")  # waits for the new owner
    served_s = time.monotonic() - killed_s
    successor = _owner(cluster, other_than=owner["pid"])
    assert successor["partitions"][0]["epoch"] > owner["partitions"][0]["epoch"]
    after = [f"after {i}" for i in range(5)]
    for body in after[1:]:
        two.send_message(QueueUrl=url, MessageBody=body)
    # Only what came after is delivered while the tail is away; nothing is deleted.
    assert _receive_all(two, url, 5) == after
    assert "Messages" not in two.receive_message(QueueUrl=url, WaitTimeSeconds=1)

    restarted = _restart_node(cluster, owner["pid"])
    try:
        assert _receive_all(one, url, 20) == sorted(before)
    finally:
        restarted.terminate()
        restarted.wait(timeout=30)
    print(f"failover: a send waited {served_s:.2f} s for the new owner")
    assert cluster.stop() == 0
