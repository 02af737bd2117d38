"""Registration, heartbeats and expiry of nodes against the real Redis, time moved by hand."""

from __future__ import annotations

import pytest

from control_plane.clock import ManualClock
from control_plane.membership import Membership, NodeInfo
from control_plane.plane import ControlPlane

TTL_MS = 10_000


@pytest.fixture
def membership(plane: ControlPlane, clock: ManualClock) -> Membership:
    return Membership(plane.redis, clock)


async def test_a_registered_node_is_listed_with_its_address(
    membership: Membership, clock: ManualClock
) -> None:
    now_ms = clock.now_ms()
    info = await membership.register("node-a", "10.0.0.7:7001", TTL_MS)
    assert info == NodeInfo("node-a", "10.0.0.7:7001", now_ms, now_ms, now_ms + TTL_MS)
    assert await membership.live_nodes() == [info]


async def test_nodes_are_listed_by_id(membership: Membership) -> None:
    for node_id in ["c", "a", "b"]:
        await membership.register(node_id, f"{node_id}:1", TTL_MS)
    assert [node.node_id for node in await membership.live_nodes()] == ["a", "b", "c"]


async def test_a_node_dies_at_the_instant_its_ttl_ends(
    membership: Membership, clock: ManualClock
) -> None:
    await membership.register("node-a", "a:1", TTL_MS)
    clock.advance(TTL_MS - 1)
    assert [node.node_id for node in await membership.live_nodes()] == ["node-a"]
    clock.advance(1)
    assert await membership.live_nodes() == []


async def test_heartbeats_keep_a_node_alive_and_record_when(
    membership: Membership, clock: ManualClock
) -> None:
    registered = await membership.register("node-a", "a:1", TTL_MS)
    for _ in range(5):
        clock.advance(TTL_MS // 2)
        assert await membership.heartbeat("node-a", TTL_MS)
    [node] = await membership.live_nodes()
    assert node.registered_ms == registered.registered_ms
    assert node.heartbeat_ms == clock.now_ms()
    assert node.expires_ms == clock.now_ms() + TTL_MS
    assert node.address == "a:1"


async def test_a_late_heartbeat_fails_until_the_node_registers_again(
    membership: Membership, clock: ManualClock
) -> None:
    await membership.register("node-a", "a:1", TTL_MS)
    clock.advance(TTL_MS)
    # Not yet pruned by anyone listing: the heartbeat itself must see the expiry.
    assert not await membership.heartbeat("node-a", TTL_MS)
    assert not await membership.heartbeat("node-a", TTL_MS)
    assert await membership.live_nodes() == []
    await membership.register("node-a", "a:1", TTL_MS)
    assert await membership.heartbeat("node-a", TTL_MS)


async def test_a_heartbeat_from_an_unknown_node_fails(membership: Membership) -> None:
    assert not await membership.heartbeat("never-registered", TTL_MS)
    assert await membership.live_nodes() == []


async def test_deregistering_removes_the_node_at_once(membership: Membership) -> None:
    await membership.register("node-a", "a:1", TTL_MS)
    await membership.register("node-b", "b:1", TTL_MS)
    assert await membership.deregister("node-a")
    assert not await membership.deregister("node-a")
    assert [node.node_id for node in await membership.live_nodes()] == ["node-b"]
    assert not await membership.heartbeat("node-a", TTL_MS)


async def test_registering_again_replaces_the_address_and_start(
    membership: Membership, clock: ManualClock
) -> None:
    await membership.register("node-a", "old:1", TTL_MS)
    clock.advance(1_000)
    again = await membership.register("node-a", "new:2", TTL_MS)
    assert await membership.live_nodes() == [again]
    assert again.registered_ms == clock.now_ms()


async def test_dead_nodes_are_pruned_and_live_ones_kept(
    membership: Membership, plane: ControlPlane, clock: ManualClock
) -> None:
    await membership.register("short", "s:1", 1_000)
    await membership.register("long", "l:1", TTL_MS)
    clock.advance(1_000)
    assert [node.node_id for node in await membership.live_nodes()] == ["long"]
    # Pruned from both structures, not only hidden.
    assert await plane.redis.zrange("tq:{nodes}:live", 0, -1) == [b"long"]
    assert await plane.redis.hkeys("tq:{nodes}:info") == [b"long"]


async def test_expiry_survives_large_clock_values(plane: ControlPlane) -> None:
    # Lua 5.1 would print such times in exponent form without %d formatting.
    far = ManualClock(start_ms=4_000_000_000_000)
    late = Membership(plane.redis, far)
    info = await late.register("node-a", "a:1", TTL_MS)
    far.advance(TTL_MS // 2)
    assert await late.heartbeat("node-a", TTL_MS)
    [node] = await late.live_nodes()
    assert node.registered_ms == info.registered_ms
    assert node.expires_ms == far.now_ms() + TTL_MS


@pytest.mark.parametrize("ttl_ms", [0, -1])
async def test_a_ttl_must_be_positive(membership: Membership, ttl_ms: int) -> None:
    with pytest.raises(ValueError, match="positive"):
        await membership.register("node-a", "a:1", ttl_ms)
    with pytest.raises(ValueError, match="positive"):
        await membership.heartbeat("node-a", ttl_ms)


async def test_a_node_id_must_not_be_empty(membership: Membership) -> None:
    with pytest.raises(ValueError, match="empty"):
        await membership.register("", "a:1", TTL_MS)


async def test_gateways_register_apart_from_nodes(plane: ControlPlane, clock: ManualClock) -> None:
    nodes = Membership(plane.redis, clock)
    gateways = Membership(plane.redis, clock, role="gateway")
    await nodes.register("n1", "127.0.0.1:9400", TTL_MS)
    await gateways.register("g1", "http://127.0.0.1:9324", TTL_MS)
    assert [n.node_id for n in await nodes.live_nodes()] == ["n1"]
    assert [(g.node_id, g.address) for g in await gateways.live_nodes()] == [
        ("g1", "http://127.0.0.1:9324")
    ]
    assert await gateways.deregister("g1")
    assert await gateways.live_nodes() == []
    assert [n.node_id for n in await nodes.live_nodes()] == ["n1"]
