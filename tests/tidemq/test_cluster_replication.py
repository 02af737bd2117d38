"""The replication modes of the un-archived tail on a real cluster (docs/durability.md):
3 `tidemq node` and 2 `tidemq gateway` processes on loopback (`tidemq up --nodes 3
--gateways 2`), steady load through both gateways on a queue of several partitions,
one node SIGKILLed under it, never to come back. With `replica` and with `object`
every acknowledged message is delivered all the same, and the killed node's partitions
are served again within the lease TTL plus 2 s."""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

import pytest

from tests.conftest import TidemqUp
from tests.tidemq.test_cluster import (
    CLUSTER_SETTINGS,
    LEASE_TTL_MS,
    _sqs,
    _status,
    _two_free_ports,
    _wait_for,
)

PARTITIONS = 4
PROBES = 8


class Load:
    """Threads sending through one gateway each, one message at a time, remembering
    what was acknowledged and when each acknowledged send began and ended."""

    def __init__(self, clients: list[Any], url: str, prefix: str = "g") -> None:
        self._prefix = prefix
        self._clients = clients
        self._url = url
        self.stop = threading.Event()
        self.acknowledged: list[str] = []
        # (began, ended) on the monotonic clock, of each thread's first send
        self.first_sends: list[tuple[float, float]] = []
        self.failures = 0
        self._lock = threading.Lock()
        self._threads = [
            threading.Thread(target=self._send, args=(i, client), daemon=True)
            for i, client in enumerate(clients)
        ]

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def join(self) -> None:
        self.stop.set()
        for thread in self._threads:
            if thread.ident is not None:  # started
                thread.join(timeout=60)

    def _send(self, index: int, client: Any) -> None:
        number = 0
        while not self.stop.is_set():
            body = f"{self._prefix}{index}-{number}"
            number += 1
            began = time.monotonic()
            try:
                client.send_message(QueueUrl=self._url, MessageBody=body)
            except Exception:  # not acknowledged: it may or may not be delivered
                with self._lock:
                    self.failures += 1
                continue
            with self._lock:
                self.acknowledged.append(body)
                if number == 1:
                    self.first_sends.append((began, time.monotonic()))


def _queue_holders(cluster: Any, stream_id: str) -> dict[int, dict[str, Any]]:
    """Partition -> the node reporting it, for the queue's stream."""
    holders = {}
    for node in _status(cluster)["nodes"]:
        for held in node["partitions"]:
            if held["stream_id"] == stream_id:
                holders[held["partition"]] = {**node, "epoch": held["epoch"]}
    return holders


def _received_all(clients: list[Any], url: str, expected: set[str]) -> set[str]:
    """Receives (and deletes) through both gateways until every expected body came,
    or 30 s went by; what came."""
    got: set[str] = set()
    deadline = time.monotonic() + 30
    turn = 0
    while not expected <= got and time.monotonic() < deadline:
        client = clients[turn % len(clients)]
        turn += 1
        answer = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1)
        messages = answer.get("Messages", [])
        for message in messages:
            got.add(message["Body"])
        if messages:
            client.delete_message_batch(
                QueueUrl=url,
                Entries=[
                    {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]}
                    for i, m in enumerate(messages)
                ],
            )
    return got


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["replica", "object"])
def test_sigkill_of_a_node_under_load_loses_no_acknowledged_message(
    tidemq_up: TidemqUp, mode: str
) -> None:
    cluster = tidemq_up(
        port=_two_free_ports(),
        args=["--nodes", "3", "--gateways", "2"],
        # A send waits in the gateway for the partition's new owner (rather than be
        # answered 503 and sent again by the SDK after a back-off).
        settings={**CLUSTER_SETTINGS, "TIDEMQ_NODE_REQUEST_TIMEOUT_MS": "8000"},
    )
    clients = [_sqs(cluster, 1), _sqs(cluster, 2)]
    url = clients[0].create_queue(
        QueueName=f"steady-{mode}",
        Attributes={"Partitions": str(PARTITIONS), "Replication": mode},
    )["QueueUrl"]
    attributes = clients[1].get_queue_attributes(QueueUrl=url, AttributeNames=["All"])
    assert attributes["Attributes"]["Replication"] == mode

    load = Load(clients, url)
    probes = Load(clients[1:] * PROBES, url, prefix="probe")
    load.start()
    try:
        # Every partition taken (the load spreads over them), and reported.
        holders = _wait_for(
            lambda: (
                h if len(h := _queue_holders(cluster, _stream_of(cluster))) == PARTITIONS else None
            )
        )
        counts: dict[int, int] = {}
        for holder in holders.values():
            counts[holder["pid"]] = counts.get(holder["pid"], 0) + 1
        victim = max(counts, key=lambda pid: counts[pid])
        lost = {p: h["epoch"] for p, h in holders.items() if h["pid"] == victim}
        time.sleep(1.0)  # acknowledged appends on the victim's un-archived tail
        before = len(load.acknowledged)
        os.kill(victim, signal.SIGKILL)
        killed_s = time.monotonic()
        # Sends begun just after the kill, each to a partition of its own pick: those
        # that pick one of the killed node's wait until a new owner serves it. (The
        # load's sends in flight at the kill wait longer: one that may have been
        # appended is retried on the same node only, until the request timeout. So
        # would a probe written to a gateway's connection before the gateway saw it
        # close: hence the pause.)
        time.sleep(0.2)
        probes.start()

        def taken_over() -> dict[int, dict[str, Any]] | None:
            now = _queue_holders(cluster, _stream_of(cluster))
            if all(p in now and now[p]["pid"] != victim for p in lost):
                return now
            return None

        after = _wait_for(taken_over)
        time.sleep(1.0)  # the load goes on over the new owners
    finally:
        load.join()
        probes.join()
    assert all(after[p]["epoch"] > epoch for p, epoch in lost.items())
    assert before > 0
    assert len(load.acknowledged) > before
    assert len(probes.first_sends) == PROBES
    # The gap: from the kill to the last probe's first send answered.
    gap_s = max(ended for _, ended in probes.first_sends) - killed_s
    print(
        f"replication {mode}: {len(load.acknowledged)} acknowledged ({load.failures} failed) "
        f"sends; the killed node's {len(lost)} partitions served again after {gap_s:.2f} s"
    )
    assert gap_s <= LEASE_TTL_MS / 1000 + 2

    expected = set(load.acknowledged) | set(probes.acknowledged)
    got = _received_all(clients, url, expected)
    assert expected - got == set(), f"{len(expected - got)} acknowledged messages lost"
    assert cluster.stop() == 0


def _stream_of(cluster: Any) -> str:
    """The stream id of the cluster's one queue (the one whose partitions are held)."""
    streams = {
        held["stream_id"] for node in _status(cluster)["nodes"] for held in node["partitions"]
    }
    assert len(streams) <= 1, streams
    return next(iter(streams), "")
