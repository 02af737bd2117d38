"""Every Lua script the control plane declares runs on a Redis Cluster.

On a cluster a script whose keys span two hash slots is refused (by redis-py before it
is sent, or by Redis with CROSSSLOT), and one that touches a key it was not given fails
once that key lives on another node. The rest of this directory's tests run on the
cluster too; this one makes sure none of the scripts is left out of them. It finds
every script by reading the control plane's modules (a module-level constant that
reads KEYS), empties the cluster's script caches, drives each store through its
operations once, and asks the cluster which scripts it was sent. A new script that
nothing below calls fails this test until a call is added here.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import pkgutil

import control_plane
from control_plane import redis_keys
from control_plane.access_keys import AccessKeys
from control_plane.bearer_tokens import BearerTokens
from control_plane.clock import ManualClock, SystemClock
from control_plane.deliveries import Deliveries, FifoEntry
from control_plane.dispatch_cursors import DispatchCursors
from control_plane.offset_reservations import OffsetReservations
from control_plane.plane import ControlPlane
from control_plane.redis_values import as_text
from control_plane.secret_box import SecretBox

ACCOUNT = "123456789012"
DAY_MS = 86_400_000


def declared_scripts() -> dict[str, str]:
    """SHA-1 (what Redis knows a script by) -> "<module>.<constant>", for every script."""
    scripts: dict[str, str] = {}
    for found in pkgutil.iter_modules(control_plane.__path__):
        module = importlib.import_module(f"control_plane.{found.name}")
        source = inspect.getsource(module)
        for name, value in vars(module).items():
            # Named after the module that defines it, not one that imports it.
            defined_here = f"\n{name} = " in source
            if name.isupper() and isinstance(value, str) and defined_here and "KEYS[" in value:
                scripts[hashlib.sha1(value.encode()).hexdigest()] = f"{module.__name__}.{name}"
    return scripts


def test_the_scripts_are_found() -> None:
    names = set(declared_scripts().values())
    assert "control_plane.delivery_scripts.CLAIM" in names
    assert "control_plane.move_tasks.START_TASK" in names
    assert "control_plane.bearer_tokens.REVOKE_SCRIPT" in names
    assert len(names) >= 40


async def test_every_script_runs_on_the_cluster(redis_cluster_url: str) -> None:
    clock = ManualClock()
    plane = await ControlPlane.connect(redis_cluster_url, clock)
    try:
        await plane.redis.script_flush()  # on a cluster: every master's cache
        await _queues_and_deliveries(plane, clock)
        await _topics_and_subscriptions(plane)
        await _nodes_and_leases(plane)
        await _keys_and_tokens(plane)
        scripts = declared_scripts()
        loaded = await plane.redis.script_exists(*scripts)
    finally:
        await plane.close()
    never_ran = sorted(name for name, ran in zip(scripts.values(), loaded, strict=True) if not ran)
    assert never_ran == []


async def _queues_and_deliveries(plane: ControlPlane, clock: ManualClock) -> None:
    queue = await plane.queues.create(ACCOUNT, "orders", {})
    await plane.queues.set_attributes(ACCOUNT, "orders", {"VisibilityTimeout": "10"})
    await plane.queues.tag(ACCOUNT, "orders", {"team": "payments"})
    sid = queue.stream_id
    deliveries: Deliveries = plane.deliveries
    assert await deliveries.delay(sid, 0, [0], clock.now_ms() + 1_000) == 1
    claim = await deliveries.claim(sid, {0: 4}, 10, 30_000)
    first, second, third = claim.deliveries
    assert await deliveries.defer(first, clock.now_ms() + 5_000)
    assert await deliveries.remove(second, "expired")
    receipt = deliveries.verify(sid, third.receipt_handle)
    assert await deliveries.change_visibility([(receipt, 0)]) == [True]
    assert await deliveries.delete([receipt]) == [True]
    assert await deliveries.purge(sid, {0: 4}, 60_000)
    await deliveries.seek(sid, {0: 0})

    fifo = await plane.queues.create(ACCOUNT, "orders.fifo", {"FifoQueue": "true"})
    entry = FifoEntry(offset=0, group_id="g", dedup_key="k", message_id="m0")
    await deliveries.register_fifo(fifo.stream_id, [entry], delay_ms=0)
    assert (await deliveries.claim(fifo.stream_id, {0: 1}, 1, 30_000, fifo=True)).deliveries
    await deliveries.deduplicate("fifo-topic-stream", [(0, 0, "k", "m0")])

    await plane.move_tasks.start(ACCOUNT, "orders", None, None, to_move=0)
    await plane.queues.delete(ACCOUNT, "orders")


async def _topics_and_subscriptions(plane: ControlPlane) -> None:
    topic, _ = await plane.topics.create(ACCOUNT, "events", {}, {})
    topic = await plane.topics.set_attributes(topic, {"DisplayName": "Events"})
    await plane.topics.tag(topic, {"team": "payments"})
    subscriptions = plane.subscriptions
    pending, _ = await subscriptions.subscribe(
        topic, "https", "https://hooks.example/a", ACCOUNT, {}, pending=True
    )
    token = await plane.redis.hget(redis_keys.subscription(ACCOUNT, pending.id), "token")
    assert token is not None
    assert await subscriptions.confirm(topic, as_text(token)) is not None
    await subscriptions.set_attributes(pending, {"RawMessageDelivery": "true"})
    other, _ = await subscriptions.subscribe(
        topic, "sqs", "arn:aws:sqs:us-east-1:123456789012:orders", ACCOUNT, {}, pending=False
    )
    assert await subscriptions.unsubscribe(other)

    cursors = DispatchCursors(plane.redis)
    assert await cursors.hold(pending.id, "gateway-1", 10_000)
    assert await cursors.advance(pending.id, "gateway-1", 0, 0, 5)
    await cursors.release(pending.id, "gateway-1")

    deleted = await plane.topics.delete(ACCOUNT, "events")
    assert deleted is not None
    assert deleted[1] == [pending.id]


async def _nodes_and_leases(plane: ControlPlane) -> None:
    await plane.membership.register("node-1", "127.0.0.1:7001", 10_000)
    assert await plane.membership.heartbeat("node-1", 10_000)
    assert [node.node_id for node in await plane.membership.live_nodes()] == ["node-1"]
    lease = await plane.leases.acquire("stream-1", 0, "node-1", 10_000)
    assert lease is not None
    renewed = await plane.leases.renew(lease)
    assert renewed is not None
    assert await plane.leases.check(renewed)
    assert await plane.leases.holder("stream-1", 0) is not None
    reservations = OffsetReservations(plane.redis, plane.clock)
    none_yet = await reservations.current("stream-1", 0)
    assert await reservations.begin(
        "stream-1", 0, "node-1", renewed.epoch, expected=none_yet, start_offset=0
    )
    assert await reservations.extend("stream-1", 0, "node-1", renewed.epoch, 128)
    assert await reservations.trim("stream-1", 0, "node-1", renewed.epoch, 5)
    assert (await reservations.current("stream-1", 0)).end_offset == 5
    assert await plane.leases.release(renewed)
    assert await plane.membership.deregister("node-1")


async def _keys_and_tokens(plane: ControlPlane) -> None:
    keys = AccessKeys(plane.redis, plane.clock, SecretBox(bytes(32)), plane.metadata_cache)
    issued = await keys.create(ACCOUNT)
    await keys.put("210987654321", issued.key.access_key_id, "another-secret")
    assert await keys.revoke(issued.key.access_key_id) is not None
    # Redis drops token records by wall-clock time: tokens need the real clock.
    tokens = BearerTokens(plane.redis, SystemClock(), plane.metadata_cache)
    token = await tokens.create(ACCOUNT, ttl_ms=DAY_MS)
    assert await tokens.revoke(token.record.token_id) is not None
