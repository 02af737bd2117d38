"""`tidemq cluster forget-tail` on a real cluster (`tidemq up --nodes 3 --gateways 2`):
a SIGKILLed owner's un-archived tail (replication `none`) given up for lost, then the
node restarted on its disk."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TidemqProcess, TidemqUp
from tests.tidemq.test_cluster import (
    _owner,
    _receive_all,
    _restart_node,
    _sqs,
    _start_cluster,
    _wait_for,
)

_DEPTHS = (
    "ApproximateNumberOfMessages",
    "ApproximateNumberOfMessagesNotVisible",
    "ApproximateNumberOfMessagesDelayed",
)


def _forget_tail(cluster: TidemqProcess, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tidemq.cli", "cluster", "forget-tail", *args],
        env={**os.environ, "TIDEMQ_DATA_DIR": cluster.banner["data dir"]},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _dead_tails(cluster: TidemqProcess) -> list[dict[str, Any]] | None:
    listed = _forget_tail(cluster, "--json")
    assert listed.returncode == 0, listed.stderr
    tails: list[dict[str, Any]] = json.loads(listed.stdout)["tails"]
    return tails if tails and not any(t["node_live"] for t in tails) else None


def _depth(sqs: Any, url: str) -> int:
    found = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=list(_DEPTHS))["Attributes"]
    return sum(int(found[name]) for name in _DEPTHS)


@pytest.mark.slow
def test_a_given_up_tail_is_skipped_by_receives_and_its_node_brings_nothing_back(
    tidemq_up: TidemqUp,
) -> None:
    cluster = _start_cluster(tidemq_up)
    one, two = _sqs(cluster, 1), _sqs(cluster, 2)
    url = one.create_queue(QueueName="forgotten")["QueueUrl"]
    for i in range(20):
        one.send_message(QueueUrl=url, MessageBody=f"before {i}")
    assert _forget_tail(cluster).stdout == "0 pending tail(s):\n"
    owner = _owner(cluster)
    os.kill(owner["pid"], signal.SIGKILL)
    after = [f"after {i}" for i in range(5)]
    for body in after:
        two.send_message(QueueUrl=url, MessageBody=body)  # the first waits for a new owner
    # Only what came after is delivered while the tail is away.
    assert _receive_all(two, url, 5) == after

    (tail,) = _wait_for(lambda: _dead_tails(cluster))  # once membership dropped the node
    assert (tail["name"], tail["partition"], tail["node_id"]) == ("forgotten", 0, owner["id"])
    assert tail["base_offset"] == 0
    assert tail["offsets"] >= 20
    refused = _forget_tail(cluster, "--node", owner["id"])
    assert refused.returncode == 1
    assert "run again with --yes" in refused.stderr
    assert _dead_tails(cluster) == [tail]

    given_up = _forget_tail(cluster, "--node", owner["id"], "--yes")
    assert given_up.returncode == 0, given_up.stderr
    assert f"given up, {tail['offsets']} offsets never written now" in given_up.stdout
    assert _forget_tail(cluster).stdout == "0 pending tail(s):\n"
    # Receives no longer wait for them: the claims of the 20 are removed (each was put
    # back for 2 s while unavailable), and later messages flow.
    one.send_message(QueueUrl=url, MessageBody="later")
    assert _receive_all(one, url, 1) == ["later"]
    deadline = time.monotonic() + 20
    while _depth(one, url) and time.monotonic() < deadline:
        got = one.receive_message(QueueUrl=url, WaitTimeSeconds=1)
        assert "Messages" not in got, got
    assert _depth(one, url) == 0

    # The node comes back with its disk: its tail is not awaited, so it deletes it and
    # nothing given up is delivered.
    restarted = _restart_node(cluster, owner["pid"])
    try:
        number = next(
            key.split()[1] for key, value in cluster.banner.items()
            if key.startswith("node ") and value.endswith(f"(pid {owner['pid']})")
        )  # fmt: skip
        old_log = (
            Path(cluster.banner["data dir"]) / "nodes" / number / "node" / "streams"
            / tail["stream_id"] / "0"
        )  # fmt: skip
        _wait_for(lambda: True if not old_log.exists() else None, timeout_s=30)
        assert "Messages" not in one.receive_message(QueueUrl=url, WaitTimeSeconds=2)
        assert _depth(one, url) == 0
    finally:
        restarted.terminate()
        restarted.wait(timeout=30)
    assert cluster.stop() == 0
