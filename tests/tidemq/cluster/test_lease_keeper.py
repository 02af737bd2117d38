"""The node's leases and fencing against the real Redis, both clocks moved by hand: the
control plane's (what Redis judges leases by) and the node's monotonic one."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from control_plane.assignment import assign
from control_plane.clock import ManualClock
from control_plane.leases import Leases
from control_plane.plane import ControlPlane
from storage_nodes.local_node import LocalNode
from storage_nodes.node import NotOwner, RecordIn
from tests.tidemq.cluster.conftest import Monotonic, archived_node, hand_overs, lease_keeper
from tidemq.cluster.lease_keeper import LeaseKeeper

TTL_MS = 3_000
NODE = "node-a"
OTHER = "node-b"


@pytest.fixture
async def storage(plane: ControlPlane, tmp_path: Path) -> AsyncIterator[LocalNode]:
    node = await archived_node(plane, tmp_path / "node", tmp_path / "archive")
    yield node
    await node.close()


def _keeper(plane: ControlPlane, storage: LocalNode, monotonic: Monotonic) -> LeaseKeeper:
    keeper = lease_keeper(
        plane, storage, NODE, TTL_MS, storage.streams_dir.parent, monotonic_s=monotonic
    )
    keeper.set_live_nodes([NODE, OTHER])
    return keeper


def _stream_assigned_to(node_id: str) -> str:
    """A new stream id (the Redis is shared) whose partition 0 goes to `node_id`."""
    prefix = uuid.uuid4().hex[:12]
    return next(
        f"{prefix}{i}" for i in range(100) if assign(f"{prefix}{i}", 0, [NODE, OTHER]) == node_id
    )


async def test_the_assigned_node_takes_the_lease_on_first_use_and_checks_epochs(
    plane: ControlPlane, storage: LocalNode
) -> None:
    keeper = _keeper(plane, storage, Monotonic())
    mine, theirs = _stream_assigned_to(NODE), _stream_assigned_to(OTHER)
    await keeper.admit(mine, 0, 0, write=True)
    (lease,) = keeper.held()
    assert (lease.stream_id, lease.node_id, lease.epoch) == (mine, NODE, 1)
    await keeper.admit(mine, 0, 1, write=True)
    with pytest.raises(NotOwner, match="at epoch 1, not 2"):
        await keeper.admit(mine, 0, 2, write=True)
    with pytest.raises(NotOwner, match=f"assigned to node {OTHER}"):
        await keeper.admit(theirs, 0, 0, write=False)
    assert await Leases(plane.redis, plane.clock).holder(theirs, 0) is None


async def test_a_node_judges_its_lease_run_out_by_its_own_clock_before_asking_redis(
    plane: ControlPlane, storage: LocalNode
) -> None:
    monotonic = Monotonic()
    keeper = _keeper(plane, storage, monotonic)
    stream = _stream_assigned_to(NODE)
    await keeper.admit(stream, 0, 0, write=True)
    # Stopped past its TTL (by its own clock); Redis's clock has not moved, so Redis
    # would still call the lease current: the node refuses all the same.
    monotonic.now_s += TTL_MS / 1000
    with pytest.raises(NotOwner, match="does not hold the lease"):
        await keeper.admit(stream, 0, 1, write=True)
    assert keeper.held() == []


async def test_a_lease_taken_over_meanwhile_is_lost_for_good(
    plane: ControlPlane, storage: LocalNode
) -> None:
    assert isinstance(plane.clock, ManualClock)
    monotonic = Monotonic()
    keeper = _keeper(plane, storage, monotonic)
    stream = _stream_assigned_to(NODE)
    await keeper.admit(stream, 0, 0, write=True)
    monotonic.now_s += TTL_MS / 1000
    plane.clock.advance(TTL_MS)
    taken = await Leases(plane.redis, plane.clock).acquire(stream, 0, OTHER, TTL_MS)
    assert taken is not None
    assert taken.epoch == 2
    for epoch in (1, 0):  # its old tenure, or any: the other node has it
        with pytest.raises(NotOwner):
            await keeper.admit(stream, 0, epoch, write=True)
    assert keeper.held() == []


async def test_renewal_keeps_leases_and_notices_a_lost_one(
    plane: ControlPlane, storage: LocalNode
) -> None:
    assert isinstance(plane.clock, ManualClock)
    monotonic = Monotonic()
    keeper = _keeper(plane, storage, monotonic)
    stream = _stream_assigned_to(NODE)
    await keeper.admit(stream, 0, 0, write=True)
    for _ in range(5):  # renewed a third of the TTL apart: held for good
        monotonic.now_s += TTL_MS / 3000
        plane.clock.advance(TTL_MS // 3)
        await keeper.renew_all()
        await keeper.admit(stream, 0, 1, write=True)
    # Redis judged it expired (its clock ran ahead) and another node took it over.
    plane.clock.advance(TTL_MS)
    assert await Leases(plane.redis, plane.clock).acquire(stream, 0, OTHER, TTL_MS)
    await keeper.renew_all()
    assert keeper.held() == []


async def test_hand_over_refuses_requests_and_releases_the_leases(
    plane: ControlPlane, storage: LocalNode
) -> None:
    keeper = _keeper(plane, storage, Monotonic())
    stream = _stream_assigned_to(NODE)
    await keeper.admit(stream, 0, 0, write=True)
    drained: list[bool] = []

    async def drain() -> None:
        drained.append(True)

    await hand_overs(plane, keeper, storage).hand_over_all(drain)
    assert drained == [True]
    assert keeper.held() == []
    assert await Leases(plane.redis, plane.clock).holder(stream, 0) is None
    with pytest.raises(NotOwner, match="shutting down"):
        await keeper.admit(stream, 0, 0, write=True)


async def test_rebalance_hands_over_only_what_a_joined_node_is_now_assigned(
    plane: ControlPlane, storage: LocalNode
) -> None:
    keeper = _keeper(plane, storage, Monotonic())
    keeper.set_live_nodes([NODE])  # alone: every partition is this node's
    staying, moving = _stream_assigned_to(NODE), _stream_assigned_to(OTHER)
    for stream in (staying, moving):
        await keeper.admit(stream, 0, 0, write=True)
        await storage.append(stream, 0, [RecordIn("m", 1, b"body")])
    moves = hand_overs(plane, keeper, storage)
    assert moves.misplaced() == []
    keeper.set_live_nodes([NODE, OTHER])  # OTHER joined
    assert moves.misplaced() == [(moving, 0)]
    seen: list[str] = []

    async def settled() -> None:
        # Requests in progress finish here; new ones for the moving partition are refused
        # already, the others' still served.
        with pytest.raises(NotOwner, match="hands"):
            await keeper.admit(moving, 0, 0, write=True)
        await keeper.admit(staying, 0, 1, write=True)
        seen.append("settled")

    await moves.rebalance(settled)
    assert seen == ["settled"]
    assert [(lease.stream_id, lease.epoch) for lease in keeper.held()] == [(staying, 1)]
    leases = Leases(plane.redis, plane.clock)
    assert await leases.holder(moving, 0) is None  # released: OTHER takes it at once
    held = await leases.holder(staying, 0)
    assert held is not None
    assert (held.node_id, held.epoch) == (NODE, 1)
    assert (moving, 0) not in storage.open_partitions()  # its log closed
    with pytest.raises(NotOwner, match=f"assigned to node {OTHER}"):
        await keeper.admit(moving, 0, 0, write=True)
