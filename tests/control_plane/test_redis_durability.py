"""Redis killed with SIGKILL and started again on its data directory has every change the
control plane acknowledged (append-only file, appendfsync always).

Several rounds of claims, deletes, visibility changes and delayed sends, with time moved
by hand so that messages are received again and again; each round ends on a different
kind of operation, then Redis is killed -9 and restarted, and the client reconnects. The
reference model (delivery_model.py) holds what every acknowledged call answered, and
after each restart:

- the whole state equals the model: cursors, every timer at its exact due time, receive
  counts and current deliveries, stats, ack floors;
- no acknowledged delete is undone: each deleted message's last receipt deletes nothing
  and the message never comes back;
- no timer is lost: time is walked to one millisecond before each in-flight or delayed
  message's due time, where it must not be deliverable, and then to the due time, where it
  must be delivered, with its receive count one higher;
- receipts handed out before the crash still verify (the signing key survived).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from control_plane.clock import ManualClock
from control_plane.plane import ControlPlane
from control_plane.redis_values import as_text
from tidemq.redis_server import RedisServer, RedisServerConfig

from .delivery_model import DeliveryDriver, HeldReceipt, State

SID = "dur4b1e"
PARTITIONS = (0, 1)
PURGE_INTERVAL_MS = 60_000
# The last operation before each kill, one round each.
LAST_OPERATIONS = (
    "delete",
    "change_visibility",
    "receive",
    "delayed_send",
    "advance",
    "purge",
    "send",
)
RANDOM_OPERATIONS = ("send", "delayed_send", "receive", "delete", "change_visibility", "advance")


async def _operate(driver: DeliveryDriver, rng: random.Random, operation: str) -> None:
    model = driver.model
    if operation in ("send", "delayed_send"):
        partition = rng.choice(PARTITIONS)
        for _ in range(rng.randint(1, 3)):
            delay = rng.randint(0, 3_000) if operation == "delayed_send" else None
            await driver.send(partition, delay)
    elif operation == "receive":
        await driver.receive(rng.randint(1, 10), rng.randint(0, 3_000))
    elif operation in ("delete", "change_visibility"):
        picks = _pick_receipts(driver, rng)
        if picks and operation == "delete":
            await driver.delete(picks)
        elif picks:
            await driver.change_visibility(picks, rng.randint(0, 3_000))
    elif operation == "advance":
        driver.clock.advance(rng.randint(0, 2_000))
    elif operation == "purge":
        assert await driver.purge(PURGE_INTERVAL_MS)
        assert all(m.state is State.DELETED for m in model.messages.values())
    else:
        raise AssertionError(operation)


def _pick_receipts(driver: DeliveryDriver, rng: random.Random) -> list[HeldReceipt]:
    """One to three held receipts, most of them current, some stale."""
    model = driver.model
    current = [r for r in model.held if model.is_current(r)]
    stale = [r for r in model.held if not model.is_current(r)]
    picks = []
    for _ in range(rng.randint(1, 3)):
        pool = current if current and (not stale or rng.random() < 0.75) else stale
        if pool:
            picks.append(rng.choice(pool))
    return picks


async def _restart(server: RedisServer, driver: DeliveryDriver) -> None:
    """SIGKILL while the client is still connected, start again, reconnect."""
    server.kill()
    await driver.plane.close()
    server.start()
    driver.plane = await ControlPlane.connect(server.url, driver.clock)


async def _check_deletes_stuck(driver: DeliveryDriver) -> None:
    model = driver.model
    last_receipts: dict[tuple[int, int], HeldReceipt] = {}
    for r in model.held:
        if model.messages[(r.partition, r.offset)].state is State.DELETED:
            last_receipts[(r.partition, r.offset)] = r
    if last_receipts:
        # The driver expects False for each: none of these messages is there to delete.
        assert not any(await driver.delete(last_receipts.values()))


async def _walk_timers(driver: DeliveryDriver, rng: random.Random) -> None:
    """To 1 ms before each pending timer (nothing due then comes out), then to it (every
    message due then comes out, its receive count one higher)."""
    model, clock = driver.model, driver.clock
    pending = [m for m in model.undeleted() if m.in_timers and m.visible_at > clock.now_ms()]
    visibility_ms = 10_000 + rng.randint(0, 5_000)
    for due in sorted({m.visible_at for m in pending}):
        falling_due = [m for m in pending if m.visible_at == due]
        counts = {m.key: m.receive_count for m in falling_due}
        clock.advance(due - 1 - clock.now_ms())
        early = {(d.partition, d.offset) for d in await driver.receive_all(visibility_ms)}
        assert not early & counts.keys(), f"delivered before {due}: {early & counts.keys()}"
        clock.advance(1)
        on_time = {
            (d.partition, d.offset): d.receive_count
            for d in await driver.receive_all(visibility_ms)
        }
        assert {key: on_time.get(key) for key in counts} == {
            key: count + 1 for key, count in counts.items()
        }, f"not redelivered at {due} with the next receive count"


@pytest.mark.slow
async def test_a_killed_redis_keeps_every_acknowledged_change(tmp_path: Path) -> None:
    server = RedisServer(RedisServerConfig(tmp_path / "redis", appendfsync="always"))
    server.start()
    clock = ManualClock()
    rng = random.Random(20_240_601)
    driver: DeliveryDriver | None = None
    try:
        driver = DeliveryDriver(
            await ControlPlane.connect(server.url, clock), clock, SID, PARTITIONS
        )
        config = {
            as_text(k or ""): as_text(v or "")
            for k, v in (await driver.plane.redis.config_get("append*")).items()
        }
        assert (config["appendonly"], config["appendfsync"]) == ("yes", "always")
        redeliveries = 0
        for last in LAST_OPERATIONS:
            for _ in range(rng.randint(20, 50)):
                await _operate(driver, rng, rng.choice(RANDOM_OPERATIONS))
            await _operate(driver, rng, last)
            await driver.check()

            await _restart(server, driver)

            await driver.check()
            await _check_deletes_stuck(driver)
            await _walk_timers(driver, rng)
            await driver.check()
            redeliveries += sum(m.receive_count > 1 for m in driver.model.messages.values())
        await _restart(server, driver)
        await driver.drain()
        # The rounds did what they are for: messages received more than once, and deleted.
        assert redeliveries > 0
        assert any(m.state is State.DELETED for m in driver.model.messages.values())
    finally:
        if driver is not None:
            await driver.plane.close()
        server.stop()
