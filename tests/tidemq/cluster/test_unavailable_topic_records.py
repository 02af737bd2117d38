"""A topic's records on the un-archived tail of a node that died are unavailable, not
gone: a queue subscription's dispatch waits for them (its cursor stays before them) and
delivers them, in order, once the node is back with its disk; a webhook's deliveries of
them are put off, neither attempted nor dropped, and made then. Real Redis, one
archive directory, in-process nodes, the control plane's clock moved by hand."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import orjson
import pytest
from aiohttp import web

from control_plane import signing_keys
from control_plane.assignment import assign
from control_plane.clock import ManualClock
from control_plane.dispatch_cursors import DispatchCursors
from control_plane.plane import ControlPlane
from gateway.core.broker import Broker
from gateway.core.envelopes import Envelopes
from gateway.core.receiver import UNAVAILABLE_RETRY_MS
from storage_nodes.local_node import LocalNode
from storage_nodes.node import RecordIn
from tests.tidemq.cluster.conftest import Monotonic, archived_node, lease_keeper
from tidemq.cluster.lease_keeper import LeaseKeeper
from tidemq.redis_server import free_port

TTL_MS = 3_000
ACCOUNT = "123456789012"


class Node:
    def __init__(self, plane: ControlPlane, node_dir: Path, storage: LocalNode) -> None:
        self.node_id = f"node-{uuid.uuid4().hex[:6]}"
        self.storage = storage
        self.keeper: LeaseKeeper = lease_keeper(
            plane, storage, self.node_id, TTL_MS, node_dir, monotonic_s=Monotonic()
        )


@pytest.fixture
async def webhook() -> AsyncIterator[tuple[str, list[str]]]:
    """A subscriber's HTTP server on loopback: its URL and the messages notified to it."""
    notified: list[str] = []

    async def handle(request: web.Request) -> web.Response:
        envelope = orjson.loads(await request.read())
        if envelope["Type"] == "Notification":
            notified.append(envelope["Message"])
        return web.Response(status=200)

    app = web.Application()
    app.router.add_post("/hook", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    yield f"http://127.0.0.1:{port}/hook", notified
    await runner.cleanup()


async def _until(condition: Callable[[], bool], timeout_s: float) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not condition() and asyncio.get_running_loop().time() < deadline:  # noqa: ASYNC110
        await asyncio.sleep(0.05)


async def _append(node: Node, stream: str, body: str) -> int:
    """What the node server does for an append: admit, append, acknowledge once covered."""
    await node.keeper.admit(stream, 0, 0, write=True)
    record = RecordIn(f"m-{body}", 1_700_000_000_000, body.encode())
    offset = await node.storage.append(stream, 0, [record])
    await node.keeper.covered(stream, 0, offset + 1)
    return offset


async def _drain(broker: Broker, queue_name: str, want: int, timeout_s: float) -> list[str]:
    queue = await broker.get_queue(ACCOUNT, queue_name)
    messages: list[str] = []
    deadline = asyncio.get_running_loop().time() + timeout_s
    while len(messages) < want and asyncio.get_running_loop().time() < deadline:
        # No long poll: it would wait on the control plane's clock, moved only by hand.
        received = await broker.receive(queue, 10, wait_ms=0)
        messages += [orjson.loads(r.record.body)["Message"] for r in received]
        await asyncio.sleep(0.1)
    return messages


async def test_dispatch_waits_for_a_dead_nodes_tail_and_delivers_it_once_back(
    plane: ControlPlane, tmp_path: Path, webhook: tuple[str, list[str]]
) -> None:
    assert isinstance(plane.clock, ManualClock)
    archive = tmp_path / "archive"
    # The topic and its subscription, made through a node that serves nothing after.
    setup = Broker(plane, await archived_node(plane, tmp_path / "setup", archive))
    topic = await setup.topics.create_topic(ACCOUNT, "orders", {}, {})
    await setup.create_queue(ACCOUNT, "audit", {})
    queue_arn = f"arn:aws:sqs:us-east-1:{ACCOUNT}:audit"
    subscription, _ = await setup.topics.subscribe(ACCOUNT, topic, "sqs", queue_arn, {})
    url, notified = webhook
    hook, _ = await setup.topics.subscribe(ACCOUNT, topic, "http", url, {})
    assert hook.token is not None
    await setup.topics.confirm_subscription(topic.arn, hook.token)
    stream = topic.stream_id

    nodes = [
        Node(plane, tmp_path / name, await archived_node(plane, tmp_path / name, archive))
        for name in ("a", "b")
    ]
    ids = [n.node_id for n in nodes]
    owner, other = nodes if assign(stream, 0, ids) == ids[0] else nodes[::-1]
    for node in nodes:
        node.keeper.set_live_nodes(ids)
    assert [await _append(owner, stream, f"a{i}") for i in range(3)] == [0, 1, 2]

    # The owner dies with its tail on its disk only; the other node takes the partition.
    await owner.storage.close()
    plane.clock.advance(TTL_MS)
    other.keeper.set_live_nodes([other.node_id])
    start = await _append(other, stream, "b0")
    assert start > 2

    broker = Broker(plane, other.storage)
    key = await signing_keys.load_or_create(plane.redis, b"k" * 32)
    broker.start_dispatch(Envelopes(key, "http://127.0.0.1"))
    try:
        # Rounds go by: nothing is delivered, and the cursor is not moved past the tail.
        assert await _drain(broker, "audit", 1, timeout_s=2.5) == []
        assert await DispatchCursors(plane.redis).position(subscription.id, 0) == 0
        assert notified == ["b0"]  # the others put off, not dropped

        # The dead node's disk comes back (a new process) and offers its tail.
        owner_dir = owner.storage.streams_dir.parent
        back = Node(plane, owner_dir, await archived_node(plane, owner_dir, archive))
        back.keeper.set_live_nodes([other.node_id, back.node_id])
        await back.keeper.recover_tails()
        await other.keeper.renew_all()
        await other.keeper.recover_tails()
        assert await _drain(broker, "audit", 4, timeout_s=10) == ["a0", "a1", "a2", "b0"]
        plane.clock.advance(UNAVAILABLE_RETRY_MS)  # the webhook's put-off deliveries are due
        await _until(lambda: len(notified) == 4, timeout_s=10)
        assert sorted(notified) == ["a0", "a1", "a2", "b0"]
        await back.storage.close()
    finally:
        await broker.close()
        await other.storage.close()
        await setup.close()
