"""A partition taken over from a node that died: offsets are never given twice, the dead
node's un-archived tail is unavailable (not gone) until the node comes back with its
disk, and then served. Real Redis, one archive directory, the control plane's clock and
the nodes' monotonic clocks moved by hand."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from control_plane.assignment import assign
from control_plane.clock import ManualClock
from control_plane.offset_reservations import OffsetReservations
from control_plane.plane import ControlPlane
from storage_nodes.local_node import LocalNode
from storage_nodes.node import NotOwner, RecordIn
from tests.tidemq.cluster.conftest import Monotonic, archived_node, hand_overs, lease_keeper
from tidemq.cluster.lease_keeper import MIN_BLOCK_OFFSETS, LeaseKeeper

TTL_MS = 3_000


def _record(body: str) -> RecordIn:
    return RecordIn(f"m-{body}", 1_700_000_000_000, body.encode())


async def _append(keeper: LeaseKeeper, storage: LocalNode, stream: str, body: str) -> int:
    """What the node server does for an append: admit, append, acknowledge once covered."""
    await keeper.admit(stream, 0, 0, write=True)
    offset = await storage.append(stream, 0, [_record(body)])
    await keeper.covered(stream, 0, offset + 1)
    return offset


class Node:
    def __init__(self, plane: ControlPlane, node_dir: Path, storage: LocalNode) -> None:
        self.node_id = f"node-{uuid.uuid4().hex[:6]}"
        self.monotonic = Monotonic()
        self.storage = storage
        self.keeper = lease_keeper(
            plane, storage, self.node_id, TTL_MS, node_dir, monotonic_s=self.monotonic
        )


async def test_a_dead_nodes_tail_is_unavailable_until_it_returns_and_no_offset_is_reused(
    plane: ControlPlane, tmp_path: Path
) -> None:
    assert isinstance(plane.clock, ManualClock)
    archive = tmp_path / "archive"
    a = Node(plane, tmp_path / "a", await archived_node(plane, tmp_path / "a", archive))
    b = Node(plane, tmp_path / "b", await archived_node(plane, tmp_path / "b", archive))
    stream = next(
        s for s in (uuid.uuid4().hex[:16] for _ in range(100))
        if assign(s, 0, [a.node_id, b.node_id]) == a.node_id
    )  # fmt: skip
    for node in (a, b):
        node.keeper.set_live_nodes([a.node_id, b.node_id])
    acknowledged = [await _append(a.keeper, a.storage, stream, f"a{i}") for i in range(5)]
    assert acknowledged == [0, 1, 2, 3, 4]
    reserved = await OffsetReservations(plane.redis, plane.clock).current(stream, 0)
    assert reserved.end_offset >= 5 + MIN_BLOCK_OFFSETS // 2  # a block ahead of the appends

    # A dies (nothing archived: its tail is on its disk only); its lease runs out.
    await a.storage.close()
    plane.clock.advance(TTL_MS)
    b.keeper.set_live_nodes([b.node_id])
    start = await _append(b.keeper, b.storage, stream, "b0")
    assert start == reserved.end_offset  # after everything A may have acknowledged
    # A's records are unavailable, not gone; the rest of its reservation likewise until
    # its tail is found.
    assert await b.storage.read_offsets(stream, 0, acknowledged) == {}
    absence = await b.storage.absent(stream, 0, [*acknowledged, start - 1])
    assert absence.unavailable == {*acknowledged, start - 1}
    assert absence.never_written == frozenset()

    # A comes back with its disk, under a new process (a new node id), and offers its
    # tail; B lists it and serves it. The rest of A's reservation was never written.
    back = Node(plane, tmp_path / "a", await archived_node(plane, tmp_path / "a", archive))
    back.keeper.set_live_nodes([b.node_id, back.node_id])
    await back.keeper.recover_tails()
    await b.keeper.renew_all()  # keeps what the tenure awaits
    await b.keeper.recover_tails()
    found = await b.storage.read_offsets(stream, 0, [*acknowledged, start])
    assert [found[o].body for o in sorted(found)] == [b"a0", b"a1", b"a2", b"a3", b"a4", b"b0"]
    absence = await b.storage.absent(stream, 0, [5, start - 1])
    assert absence == type(absence)(frozenset(), frozenset({5, start - 1}))
    # Once its tail is listed, the old copy is dropped from A's disk.
    await back.keeper.recover_tails()
    assert not (tmp_path / "a" / "streams" / stream / "0").exists()

    # A node whose lease ran out cannot raise its reservation: its appends past it are
    # never acknowledged.
    with pytest.raises(NotOwner):
        await a.keeper.covered(stream, 0, start + 10 * MIN_BLOCK_OFFSETS)
    for node in (b, back):
        await node.storage.close()


async def test_a_graceful_hand_over_leaves_no_gap(plane: ControlPlane, tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    a = Node(plane, tmp_path / "a", await archived_node(plane, tmp_path / "a", archive))
    b = Node(plane, tmp_path / "b", await archived_node(plane, tmp_path / "b", archive))
    stream = next(
        s for s in (uuid.uuid4().hex[:16] for _ in range(100))
        if assign(s, 0, [a.node_id, b.node_id]) == a.node_id
    )  # fmt: skip
    for node in (a, b):
        node.keeper.set_live_nodes([a.node_id, b.node_id])
    for i in range(3):
        await _append(a.keeper, a.storage, stream, f"a{i}")

    async def drained() -> None:
        return None

    await hand_overs(plane, a.keeper, a.storage).hand_over_all(drained)
    b.keeper.set_live_nodes([b.node_id])
    assert await _append(b.keeper, b.storage, stream, "b0") == 3
    found = await b.storage.read_offsets(stream, 0, [0, 1, 2, 3])
    assert [found[o].body for o in sorted(found)] == [b"a0", b"a1", b"a2", b"b0"]
    for node in (a, b):
        await node.storage.close()
