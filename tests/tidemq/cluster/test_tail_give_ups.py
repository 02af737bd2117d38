"""Giving a dead node's pending tail up for lost with `tidemq cluster forget-tail` (a real
process), applied by the partition's owner on its round: real Redis, one archive
directory, the nodes built in-process as in test_failover.py."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

from control_plane.assignment import assign
from control_plane.clock import ManualClock, SystemClock
from control_plane.membership import Membership
from control_plane.plane import ControlPlane
from storage_nodes.archive import layout
from storage_nodes.archive.local_store import LocalDirStore
from storage_nodes.archive.manifest import Manifests
from tests.tidemq.cluster.conftest import archived_node
from tests.tidemq.cluster.test_failover import TTL_MS, Node, _append


def _forget_tail(redis_url: str, archive: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "TIDEMQ_REDIS_URL": redis_url, "TIDEMQ_ARCHIVE_URL": str(archive)}
    return subprocess.Popen(
        [sys.executable, "-m", "tidemq.cli", "cluster", "forget-tail", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _run(redis_url: str, archive: Path, *args: str) -> tuple[int, str, str]:
    process = _forget_tail(redis_url, archive, *args)
    out, err = process.communicate(timeout=60)
    return process.returncode, out, err


async def _dead_owner_with_a_tail(
    plane: ControlPlane, tmp_path: Path
) -> tuple[Node, Node, str, str, list[int]]:
    """A appends 5 records, unarchived, and dies; B takes the partition over and appends
    one: A's records are B's pending tail."""
    assert isinstance(plane.clock, ManualClock)
    archive = tmp_path / "archive"
    a = Node(plane, tmp_path / "a", await archived_node(plane, tmp_path / "a", archive))
    b = Node(plane, tmp_path / "b", await archived_node(plane, tmp_path / "b", archive))
    while True:  # a queue whose partition A is assigned
        name = f"q-{uuid.uuid4().hex[:8]}"
        stream = (await plane.queues.create("123456789012", name, {})).stream_id
        if assign(stream, 0, [a.node_id, b.node_id]) == a.node_id:
            break
    for node in (a, b):
        node.keeper.set_live_nodes([a.node_id, b.node_id])
    acknowledged = [await _append(a.keeper, a.storage, stream, f"a{i}") for i in range(5)]
    await a.storage.close()
    plane.clock.advance(TTL_MS)
    b.keeper.set_live_nodes([b.node_id])
    await _append(b.keeper, b.storage, stream, "b0")
    return a, b, stream, name, acknowledged


async def test_a_given_up_tail_is_never_written_and_its_returning_node_brings_nothing_back(
    plane: ControlPlane, redis_url: str, tmp_path: Path
) -> None:
    a, b, stream, name, acknowledged = await _dead_owner_with_a_tail(plane, tmp_path)
    archive = tmp_path / "archive"
    manifests = Manifests(LocalDirStore(archive))
    manifest, _ = manifests.read(stream, 0)
    assert manifest is not None
    (tail,) = manifest.pending
    assert (tail.base_offset, tail.lease_epoch, tail.node_id) == (0, 1, a.node_id)

    code, out, err = await asyncio.to_thread(_run, redis_url, archive, "--json")
    assert code == 0, err
    (listed,) = json.loads(out)["tails"]
    assert listed == {
        "stream_id": stream,
        "partition": 0,
        "account_id": "123456789012",
        "kind": "queue",
        "name": name,
        "base_offset": 0,
        "end_offset": tail.end_offset,
        "offsets": tail.end_offset,
        "lease_epoch": 1,
        "node_id": a.node_id,
        "node_live": False,
    }

    # Refused without --yes, and while membership lists the tail's node (without --force).
    code, _, err = await asyncio.to_thread(
        _run, redis_url, archive, "--stream", stream, "--partition", "0"
    )
    assert code == 1
    assert "--yes" in err
    assert "Nothing done" in err
    membership = Membership(plane.redis, SystemClock())
    await membership.register(a.node_id, "127.0.0.1:1", 60_000)
    code, _, err = await asyncio.to_thread(_run, redis_url, archive, "--node", a.node_id, "--yes")
    assert code == 1
    assert f"the tail's node is live (membership lists {a.node_id})" in err
    await membership.deregister(a.node_id)
    assert not list(LocalDirStore(archive).list(layout.give_ups_prefix(stream, 0)))
    assert (await b.storage.absent(stream, 0, acknowledged)).unavailable == set(acknowledged)

    # Given up: the owner applies it on its round, which the command waits for.
    process = _forget_tail(redis_url, archive, "--stream", stream, "--partition", "0", "--yes")
    while process.poll() is None:
        await b.keeper.recover_tails()
        await asyncio.sleep(0.05)
    out, err = process.communicate()
    assert process.returncode == 0, err
    assert f"{stream}/0 (queue {name}) offsets 0-{tail.end_offset}" in out
    assert f"node {a.node_id}): given up, {tail.end_offset} offsets never written now" in out
    absence = await b.storage.absent(stream, 0, acknowledged)
    assert absence.never_written == set(acknowledged)
    assert absence.unavailable == frozenset()
    assert not list(LocalDirStore(archive).list(layout.give_ups_prefix(stream, 0)))
    code, out, _ = await asyncio.to_thread(_run, redis_url, archive)
    assert (code, out) == (0, "0 pending tail(s):\n")

    # A returns with its disk: its tail is not awaited any more, so it offers nothing
    # and deletes its old log; nothing given up comes back.
    back = Node(plane, tmp_path / "a", await archived_node(plane, tmp_path / "a", archive))
    back.keeper.set_live_nodes([b.node_id, back.node_id])
    await back.keeper.recover_tails()
    await b.keeper.recover_tails()
    assert not list(LocalDirStore(archive).list(layout.tails_prefix(stream, 0)))
    assert not (tmp_path / "a" / "streams" / stream / "0").exists()
    assert await b.storage.read_offsets(stream, 0, acknowledged) == {}
    assert (await b.storage.absent(stream, 0, acknowledged)).never_written == set(acknowledged)
    for node in (b, back):
        await node.storage.close()


async def test_the_command_says_what_it_cannot_do(
    plane: ControlPlane, redis_url: str, tmp_path: Path
) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    code, out, _ = await asyncio.to_thread(_run, redis_url, archive)
    assert (code, out) == (0, "0 pending tail(s):\n")
    code, _, err = await asyncio.to_thread(
        _run, redis_url, archive, "--stream", "0123456789abcdef", "--partition", "0", "--yes"
    )
    assert code == 1
    assert "no pending tail matches --stream 0123456789abcdef --partition 0" in err
    code, _, err = await asyncio.to_thread(_run, redis_url, archive, "--partition", "0")
    assert (code, err.strip()) == (2, "tidemq cluster forget-tail: --partition goes with --stream")
    code, _, err = await asyncio.to_thread(_run, redis_url, archive, "--stream", "ab")
    assert code == 2
    assert "by --stream and --partition, or by --node alone" in err
    code, _, err = await asyncio.to_thread(_run, "redis://127.0.0.1:1/0", archive)
    assert code == 2
    assert err.startswith("tidemq cluster forget-tail: ")
