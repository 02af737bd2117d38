"""Tail copies (storage_nodes/copies) between nodes in this process, over the real Redis,
one archive directory and, for `replica`, a follower's real node server on loopback: an
owner that dies without archiving loses none of what it acknowledged, a jump in the
copies is a gap, a follower switch archives first, and a fenced owner's copies past its
tail are never read. Clocks moved by hand, as in test_failover.py."""

from __future__ import annotations

import uuid
from pathlib import Path

from control_plane.assignment import assign, weight
from control_plane.clock import ManualClock
from control_plane.offset_reservations import OffsetReservations
from control_plane.plane import ControlPlane
from storage_nodes.archive import layout
from storage_nodes.copies import batches, object_copies
from storage_nodes.copies.copier import TailCopier
from storage_nodes.copies.replica_store import ReplicaStore
from storage_nodes.local_node import LocalNode
from storage_nodes.node import RecordIn, Replication
from storage_nodes.wire.server import NodeServer
from tests.tidemq.cluster.conftest import Monotonic, archived_node, lease_keeper

TTL_MS = 3_000


class Node:
    """A storage node as `tidemq node` wires one: leases, copies, replicas, a server."""

    def __init__(self, plane: ControlPlane, node_dir: Path, storage: LocalNode) -> None:
        self.node_id = f"node-{uuid.uuid4().hex[:6]}"
        self.monotonic = Monotonic()
        self.storage = storage
        self.replicas = ReplicaStore(node_dir, monotonic_s=self.monotonic)
        self.keeper = lease_keeper(
            plane,
            storage,
            self.node_id,
            TTL_MS,
            node_dir,
            replicas=self.replicas,
            monotonic_s=self.monotonic,
        )
        tiering = storage.tiering
        assert tiering is not None
        self.copier = self.keeper.copies = TailCopier(
            self.node_id,
            tiering.manifests.store,
            self.keeper,
            archive=storage.archive_partition,
            archived_end=tiering.archived_end,
            weight=weight,
            timeout_ms=TTL_MS,
            monotonic_s=self.monotonic,
        )
        self.server = NodeServer(storage, self.keeper, copies=self.copier, replicas=self.replicas)
        self.address = ""

    async def start(self) -> None:
        host, port = await self.server.start("127.0.0.1", 0)
        self.address = f"{host}:{port}"

    async def append(self, stream: str, body: str, mode: Replication) -> int:
        """What the node server does for an append: admit, append, cover, copy."""
        await self.keeper.admit(stream, 0, 0, write=True)
        records = [RecordIn(f"m-{body}", 1_700_000_000_000, body.encode())]
        offset = await self.storage.append(stream, 0, records)
        await self.keeper.covered(stream, 0, offset + 1)
        await self.copier.copy(stream, 0, offset, records, mode)
        return offset

    async def die(self) -> None:
        """A SIGKILL, as far as the others can tell: nothing archived, nothing answered."""
        await self.server.close()
        await self.copier.close()
        await self.storage.close()

    async def close(self) -> None:
        await self.die()


def _live(*nodes: Node) -> None:
    for node in nodes:
        node.keeper.set_live_nodes([n.node_id for n in nodes])
        node.copier.set_live_nodes({n.node_id: n.address for n in nodes})


def _stream_where(owner: Node, follower: Node, *others: Node) -> str:
    """A new stream id whose partition 0 goes to `owner`, then to `follower`."""
    everyone = [owner.node_id, follower.node_id, *(n.node_id for n in others)]
    for _ in range(1000):
        stream = uuid.uuid4().hex[:16]
        if (
            assign(stream, 0, everyone) == owner.node_id
            and assign(stream, 0, everyone[1:]) == follower.node_id
        ):
            return stream
    raise AssertionError("no such stream")


async def _bodies(node: Node, stream: str, offsets: list[int]) -> list[bytes]:
    found = await node.storage.read_offsets(stream, 0, offsets)
    return [found[o].body for o in sorted(found)]


async def _nodes(plane: ControlPlane, tmp_path: Path, count: int) -> list[Node]:
    nodes = []
    for i in range(count):
        node_dir = tmp_path / f"n{i}"
        node = Node(plane, node_dir, await archived_node(plane, node_dir, tmp_path / "archive"))
        await node.start()
        nodes.append(node)
    _live(*nodes)
    return nodes


async def test_object_copies_recover_an_owner_that_died(
    plane: ControlPlane, tmp_path: Path
) -> None:
    assert isinstance(plane.clock, ManualClock)
    a, b = await _nodes(plane, tmp_path, 2)
    stream = _stream_where(a, b)
    acknowledged = [await a.append(stream, f"a{i}", "object") for i in range(5)]
    store = a.storage.tiering.manifests.store  # type: ignore[union-attr]
    assert list(store.list(layout.copies_prefix(stream, 0)))  # one object per round
    await a.die()
    plane.clock.advance(TTL_MS)
    _live(b)
    start = await b.append(stream, "b0", "object")
    assert start > acknowledged[-1]  # after A's reservation
    assert await _bodies(b, stream, [*acknowledged, start]) == [
        b"a0", b"a1", b"a2", b"a3", b"a4", b"b0",
    ]  # fmt: skip
    # A's copies are gone once its tail is filled; B's own stay until archived.
    assert list(store.list(layout.copies_prefix(stream, 0, 1))) == []
    await b.close()


async def test_a_follower_s_replica_recovers_an_owner_that_died(
    plane: ControlPlane, tmp_path: Path
) -> None:
    assert isinstance(plane.clock, ManualClock)
    a, b = await _nodes(plane, tmp_path, 2)
    stream = _stream_where(a, b)
    acknowledged = [await a.append(stream, f"a{i}", "replica") for i in range(5)]
    (tenure, _), *_ = b.replicas.tenures()
    assert tenure[:2] == (stream, 0)
    assert [r.body for r in await b.replicas.records(tenure)] == [
        f"a{i}".encode() for i in range(5)
    ]
    await a.die()
    plane.clock.advance(TTL_MS)
    _live(b)
    start = await b.append(stream, "b0", "replica")  # no other node: an object copy
    assert await _bodies(b, stream, [*acknowledged, start]) == [
        b"a0", b"a1", b"a2", b"a3", b"a4", b"b0",
    ]  # fmt: skip
    assert b.replicas.tenures() == []  # its copies of A's tail, deleted once filled
    await b.close()


async def test_a_jump_in_the_copies_is_a_gap(plane: ControlPlane, tmp_path: Path) -> None:
    """An append whose copy failed was never acknowledged: the offsets it took are a gap
    between the copies of the appends around it, and recovery goes on past it."""
    assert isinstance(plane.clock, ManualClock)
    a, b = await _nodes(plane, tmp_path, 2)
    stream = _stream_where(a, b)
    first = await a.append(stream, "a0", "object")
    # Appended to A's log and never copied (as when the store failed that round).
    await a.keeper.admit(stream, 0, 0, write=True)
    lost = await a.storage.append(stream, 0, [RecordIn("m-x", 1, b"never acknowledged")])
    third = await a.append(stream, "a2", "object")
    assert (first, lost, third) == (0, 1, 2)
    await a.die()
    plane.clock.advance(TTL_MS)
    _live(b)
    start = await b.append(stream, "b0", "object")
    assert await _bodies(b, stream, [0, 1, 2, start]) == [b"a0", b"a2", b"b0"]
    absence = await b.storage.absent(stream, 0, [1])
    assert absence.never_written == {1}
    await b.close()


async def test_a_follower_switch_archives_the_tail_first(
    plane: ControlPlane, tmp_path: Path
) -> None:
    assert isinstance(plane.clock, ManualClock)
    a, b, c = await _nodes(plane, tmp_path, 3)
    stream = _stream_where(a, b, c)
    before = [await a.append(stream, f"a{i}", "replica") for i in range(3)]
    assert [t[:2] for t, _ in b.replicas.tenures()] == [(stream, 0)]
    # B fails: the owner's next round goes to C, after archiving what B held.
    await b.die()
    after = [await a.append(stream, f"c{i}", "replica") for i in range(2)]
    tiering = a.storage.tiering
    assert tiering is not None
    # What the log held at the switch, the round being copied included.
    assert tiering.archived_end(stream, 0) == after[0] + 1
    (tenure, _), *_ = c.replicas.tenures()
    assert [r.offset for r in await c.replicas.records(tenure)] == after  # sent to C
    # Then A dies too: C, the one left, has every acknowledged append.
    await a.die()
    plane.clock.advance(TTL_MS)
    _live(c)
    start = await c.append(stream, "c-own", "replica")
    assert await _bodies(c, stream, [*before, *after, start]) == [
        b"a0", b"a1", b"a2", b"c0", b"c1", b"c-own",
    ]  # fmt: skip
    await c.close()


async def test_a_fenced_owner_s_copies_past_its_tail_are_not_read(
    plane: ControlPlane, tmp_path: Path
) -> None:
    assert isinstance(plane.clock, ManualClock)
    a, b = await _nodes(plane, tmp_path, 2)
    stream = _stream_where(a, b)
    acknowledged = await a.append(stream, "a0", "object")
    reserved_end = await _reserved_end(plane, stream)
    # A, stopped past its lease, writes a copy past its reservation when it runs again
    # (it could never acknowledge it: its reservation cannot be raised).
    store = a.storage.tiering.manifests.store  # type: ignore[union-attr]
    late = [RecordIn("m-late", 1, b"late")]
    object_copies.put(store, stream, 0, 1, batches.encode(reserved_end, late))
    plane.clock.advance(TTL_MS)
    _live(b)
    start = await b.append(stream, "b0", "object")
    assert start == reserved_end  # B's first offset: the late copy's
    assert await _bodies(b, stream, [acknowledged, start]) == [b"a0", b"b0"]
    await a.die()
    await b.close()


async def test_the_copier_and_the_follower_delete_what_the_archive_holds(
    plane: ControlPlane, tmp_path: Path
) -> None:
    a, b = await _nodes(plane, tmp_path, 2)
    stream = _stream_where(a, b)
    for i in range(3):
        await a.append(stream, f"a{i}", "object")
        await a.append(stream, f"r{i}", "replica")
    store = a.storage.tiering.manifests.store  # type: ignore[union-attr]
    assert list(store.list(layout.copies_prefix(stream, 0)))
    await a.storage.archive_partition(stream, 0)
    await a.keeper.recover_tails()  # the round: the copier tends its copies
    assert list(store.list(layout.copies_prefix(stream, 0))) == []
    # The follower, not written to for a TTL, finds the archive holding its copies.
    b.monotonic.now_s += TTL_MS / 1000 + 1
    await b.keeper.recover_tails()
    assert b.replicas.tenures() == []
    for node in (a, b):
        await node.close()


async def _reserved_end(plane: ControlPlane, stream: str) -> int:
    return (await OffsetReservations(plane.redis, plane.clock).current(stream, 0)).end_offset
