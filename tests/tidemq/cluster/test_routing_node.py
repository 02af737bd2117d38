"""A gateway's RoutingNode against two in-process node servers on loopback, each with its
own LocalNode and LeaseKeeper, over the real Redis."""

from __future__ import annotations

import asyncio
import itertools
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from control_plane.assignment import assign
from control_plane.membership import Membership
from control_plane.plane import ControlPlane
from storage_nodes.local_node import LocalNode
from storage_nodes.node import RecordIn, StreamDescriptor, StreamDropped
from storage_nodes.wire.producer_sequences import ProducerSequences
from storage_nodes.wire.server import NodeServer
from tests.tidemq.cluster.conftest import archived_node, hand_overs, lease_keeper
from tidemq.cluster.lease_keeper import LeaseKeeper
from tidemq.cluster.routing_node import RoutingNode

TTL_MS = 5_000


@dataclass
class RunningNode:
    node_id: str
    keeper: LeaseKeeper
    storage: LocalNode
    server: NodeServer = field(init=False)
    delay_first_append_s: float = 0.0

    async def admit(self, stream_id: str, partition: int, epoch: int, *, write: bool) -> None:
        if write and self.delay_first_append_s:
            delay, self.delay_first_append_s = self.delay_first_append_s, 0.0
            await asyncio.sleep(delay)  # its answer comes too late: the gateway repeats it
        await self.keeper.admit(stream_id, partition, epoch, write=write)

    async def covered(self, stream_id: str, partition: int, end_offset: int) -> None:
        await self.keeper.covered(stream_id, partition, end_offset)


@pytest.fixture
async def plane(redis_url: str) -> AsyncIterator[ControlPlane]:
    control = await ControlPlane.connect(redis_url)
    yield control
    await control.close()


@pytest.fixture
async def nodes(plane: ControlPlane, tmp_path: Path) -> AsyncIterator[list[RunningNode]]:
    membership = Membership(plane.redis, plane.clock)
    for stale in await membership.live_nodes():  # of other tests on this Redis
        await membership.deregister(stale.node_id)
    running = []
    ids = [f"n-{uuid.uuid4().hex[:6]}" for _ in range(2)]
    for node_id in ids:
        storage = await archived_node(plane, tmp_path / node_id, tmp_path / "archive")
        sequences = ProducerSequences()
        keeper = lease_keeper(
            plane, storage, node_id, TTL_MS, tmp_path / node_id, sequences=sequences
        )
        keeper.set_live_nodes(ids)
        node = RunningNode(node_id, keeper, storage)
        node.server = NodeServer(storage, node, sequences=sequences)  # fenced by the keeper
        host, port = await node.server.start("127.0.0.1", 0)
        await membership.register(node_id, f"{host}:{port}", TTL_MS)
        running.append(node)
    yield running
    for node in running:
        await node.server.close()
        await node.storage.close()
        await membership.deregister(node.node_id)


def _record(body: bytes) -> RecordIn:
    return RecordIn("m-" + body.decode(), 1_700_000_000_000, body)


async def test_requests_go_to_the_assigned_node_then_follow_a_hand_over(
    plane: ControlPlane, nodes: list[RunningNode]
) -> None:
    routing = RoutingNode(plane, timeout_ms=5_000, attempt_timeout_ms=TTL_MS)
    stream = uuid.uuid4().hex[:16]
    await routing.create_stream(StreamDescriptor(stream, "123456789012", "queue", "q", 1, 0))
    assert await routing.append(stream, 0, [_record(b"a"), _record(b"b")]) == 0
    owner_id = assign(stream, 0, [n.node_id for n in nodes])
    owner = next(n for n in nodes if n.node_id == owner_id)
    other = next(n for n in nodes if n is not owner)
    assert [lease.node_id for lease in owner.keeper.held()] == [owner_id]
    assert other.keeper.held() == []
    # The owner leaves: it refuses, archives the partition and gives it up, and the
    # gateway finds the other node, which goes on right after (no gap: the owner trimmed
    # its reservation to its log's end) and serves the first two from the archive.
    await hand_overs(plane, owner.keeper, owner.storage).hand_over_all(owner.server.drain)
    await Membership(plane.redis, plane.clock).deregister(owner_id)
    other.keeper.set_live_nodes([other.node_id])
    assert await routing.append(stream, 0, [_record(b"c")]) == 2
    assert [lease.epoch for lease in other.keeper.held()] == [2]
    found = await routing.read_offsets(stream, 0, [0, 1, 2])
    assert [found[o].body for o in sorted(found)] == [b"a", b"b", b"c"]
    assert await routing.end_offset(stream, 0) == 3
    await routing.drop_stream(stream)
    await routing.close()


async def test_an_unanswered_append_is_repeated_on_the_same_node_and_appended_once(
    plane: ControlPlane, nodes: list[RunningNode]
) -> None:
    routing = RoutingNode(plane, timeout_ms=5_000, attempt_timeout_ms=300)
    stream = uuid.uuid4().hex[:16]
    owner_id = assign(stream, 0, [n.node_id for n in nodes])
    owner = next(n for n in nodes if n.node_id == owner_id)
    assert await routing.append(stream, 0, [_record(b"first")]) == 0
    owner.delay_first_append_s = 0.6  # past the 300 ms the gateway waits for an answer
    assert await routing.append(stream, 0, [_record(b"second")]) == 1
    await asyncio.sleep(0.6)  # the first copy has been answered too, from the dedup state
    assert await routing.end_offset(stream, 0) == 2
    await routing.close()


def _append_requests() -> float:
    """APPEND requests the node servers of this process have received (the node's metric)."""
    found = REGISTRY.get_sample_value("tidemq_node_requests_total", {"operation": "APPEND"})
    return found or 0.0


async def _stream_on(routing: RoutingNode, nodes: list[RunningNode]) -> tuple[str, RunningNode]:
    """A new one-partition stream, and the node that owns it."""
    stream = uuid.uuid4().hex[:16]
    await routing.create_stream(StreamDescriptor(stream, "123456789012", "queue", "q", 1, 0))
    owner_id = assign(stream, 0, [n.node_id for n in nodes])
    return stream, next(n for n in nodes if n.node_id == owner_id)


async def test_concurrent_appends_to_a_partition_share_requests_each_with_its_offsets(
    plane: ControlPlane, nodes: list[RunningNode]
) -> None:
    routing = RoutingNode(plane, timeout_ms=5_000, attempt_timeout_ms=TTL_MS)
    stream, _ = await _stream_on(routing, nodes)
    groups = [[f"{i}.{j}".encode() for j in range(1 + i % 3)] for i in range(300)]
    before = _append_requests()
    offsets = await asyncio.gather(
        *(routing.append(stream, 0, [_record(body) for body in group]) for group in groups)
    )
    # The first goes alone; those arriving while it is out go together when it returns.
    assert _append_requests() - before <= 5
    total = sum(len(group) for group in groups)
    pairs = zip(offsets, groups, strict=True)
    spans = sorted((offset, offset + len(group)) for offset, group in pairs)
    assert spans[0][0] == 0
    assert spans[-1][1] == total
    assert all(end == start for (_, end), (start, _) in itertools.pairwise(spans))
    found = await routing.read_offsets(stream, 0, list(range(total)))
    for offset, group in zip(offsets, groups, strict=True):
        assert [found[offset + j].body for j in range(len(group))] == group
    assert await routing.end_offset(stream, 0) == total
    await routing.close()


async def test_an_error_fails_every_append_of_the_request(
    plane: ControlPlane, nodes: list[RunningNode]
) -> None:
    routing = RoutingNode(plane, timeout_ms=5_000, attempt_timeout_ms=TTL_MS)
    stream, owner = await _stream_on(routing, nodes)
    assert await routing.append(stream, 0, [_record(b"before")]) == 0
    before = _append_requests()
    owner.delay_first_append_s = 0.5
    first = asyncio.create_task(routing.append(stream, 0, [_record(b"first")]))
    await asyncio.sleep(0.1)  # out, and held at the node: the next wait for it
    waiting = [asyncio.create_task(routing.append(stream, 0, [_record(b"w")])) for _ in range(20)]
    await asyncio.sleep(0.1)
    await owner.storage.drop_stream(stream)  # a queue deleted meanwhile
    results = await asyncio.gather(first, *waiting, return_exceptions=True)
    assert [type(result) for result in results] == [StreamDropped] * 21
    assert _append_requests() - before == 2  # the first, then the twenty as one
    await routing.close()


async def test_a_malformed_append_fails_alone_not_the_appends_sharing_its_request(
    plane: ControlPlane, nodes: list[RunningNode]
) -> None:
    routing = RoutingNode(plane, timeout_ms=5_000, attempt_timeout_ms=TTL_MS)
    stream, owner = await _stream_on(routing, nodes)
    owner.delay_first_append_s = 0.3
    first = asyncio.create_task(routing.append(stream, 0, [_record(b"first")]))
    await asyncio.sleep(0.1)
    before = _append_requests()
    good = asyncio.create_task(routing.append(stream, 0, [_record(b"good")]))
    bad_record = RecordIn("m-bad", 1_700_000_000_000, b"bad", delay_ms=-1)
    bad = asyncio.create_task(routing.append(stream, 0, [bad_record]))
    assert await first == 0
    assert await good == 1
    with pytest.raises(ValueError, match="delay"):
        await bad
    # Both together, refused whole (nothing written); then each alone.
    assert _append_requests() - before == 3
    assert await routing.end_offset(stream, 0) == 2
    await routing.close()
