"""Wake-ups within a process and across processes (two control planes, one Redis)."""

from __future__ import annotations

import asyncio

import pytest

from control_plane.clock import ManualClock
from control_plane.plane import ControlPlane
from control_plane.redis_client import RedisClient, open_redis
from control_plane.wakeups import IDLE_MARK_MS, IdleMark, WakeUps
from tests.redis_cluster import command_calls


async def test_a_notify_before_the_wait_is_not_lost() -> None:
    wakeups = WakeUps()
    with wakeups.listen("s") as listener:
        wakeups.notify("s")  # lands between the caller's look for work and its wait
        assert await listener.wait(5)
        assert not await listener.wait(0.01)  # consumed


async def test_a_notify_wakes_only_its_subscription() -> None:
    wakeups = WakeUps()
    with wakeups.listen("s") as mine, wakeups.listen("t") as other:
        wakeups.notify("s")
        assert await mine.wait(5)
        assert not await other.wait(0.01)


def test_an_empty_look_stands_for_later_polls_until_a_notify() -> None:
    wakeups = WakeUps()
    with wakeups.listen("stream") as looker:
        wakeups.mark_idle(looker, "stream", "sub", now_ms=1_000, next_due_ms=None)
    assert wakeups.idle_mark("stream", "sub", 1_500) == IdleMark(1_000 + IDLE_MARK_MS, None)
    assert wakeups.idle_mark("stream", "other-sub", 1_500) is None
    wakeups.notify("stream")
    assert wakeups.idle_mark("stream", "sub", 1_500) is None


def test_a_topic_streams_notify_clears_the_marks_of_all_its_subscriptions() -> None:
    wakeups = WakeUps()
    with wakeups.listen("topic") as looker:
        wakeups.mark_idle(looker, "topic", "a", now_ms=0, next_due_ms=None)
        wakeups.mark_idle(looker, "topic", "b", now_ms=0, next_due_ms=None)
    wakeups.notify("another-stream")
    assert wakeups.idle_mark("topic", "a", 1) is not None
    wakeups.notify("topic")
    assert wakeups.idle_mark("topic", "a", 1) is None
    assert wakeups.idle_mark("topic", "b", 1) is None


def test_a_look_that_a_notify_overtook_marks_nothing() -> None:
    wakeups = WakeUps()
    with wakeups.listen("stream") as looker:
        wakeups.notify("stream")  # while the look was in Redis: it may not have seen it
        wakeups.mark_idle(looker, "stream", "sub", now_ms=0, next_due_ms=None)
    assert wakeups.idle_mark("stream", "sub", 1) is None


def test_a_mark_ends_when_the_next_timer_falls_due_or_it_is_old() -> None:
    wakeups = WakeUps()
    with wakeups.listen("stream") as looker:
        wakeups.mark_idle(looker, "stream", "timer", now_ms=0, next_due_ms=300)
        wakeups.mark_idle(looker, "stream", "old", now_ms=0, next_due_ms=10 * IDLE_MARK_MS)
        wakeups.mark_idle(looker, "stream", "due", now_ms=0, next_due_ms=0)
    assert wakeups.idle_mark("stream", "timer", 299) == IdleMark(300, 300)
    assert wakeups.idle_mark("stream", "timer", 300) is None
    assert wakeups.idle_mark("stream", "old", IDLE_MARK_MS - 1) == IdleMark(
        IDLE_MARK_MS, 10 * IDLE_MARK_MS
    )
    assert wakeups.idle_mark("stream", "old", IDLE_MARK_MS) is None
    assert wakeups.idle_mark("stream", "due", 0) is None  # a timer due already: look again


async def test_a_look_in_flight_is_found_until_it_ends_or_a_notify_comes() -> None:
    wakeups = WakeUps()
    with wakeups.looking("stream", "sub"):
        look = wakeups.look_in_flight("stream", "sub")
        assert look is not None
        assert not look.done()
        assert wakeups.look_in_flight("stream", "other-sub") is None
    assert look.done()  # its waiters see what it left
    assert wakeups.look_in_flight("stream", "sub") is None
    with wakeups.looking("stream", "sub"):
        wakeups.notify("stream")  # the look may have missed what this announces
        assert wakeups.look_in_flight("stream", "sub") is None
        with wakeups.looking("stream", "sub"):  # begun after the notify: it stands
            assert wakeups.look_in_flight("stream", "sub") is not None
    assert wakeups.look_in_flight("stream", "sub") is None


async def _wakes(sender: WakeUps, receiver: WakeUps) -> bool:
    """Whether a notify in `sender` wakes a listener in `receiver` (within 10 s)."""
    with receiver.listen("sub") as listener:
        waiting = asyncio.create_task(listener.wait(10))
        sender.notify("sub")
        return await waiting


async def _publishes(redis: RedisClient) -> int:
    """PUBLISH commands Redis ran so far (on every node of a cluster)."""
    return await command_calls(redis, "publish")


async def test_a_process_alone_publishes_nothing(plane: ControlPlane) -> None:
    assert not plane.wakeups.peers_listen()
    before = await _publishes(plane.redis)
    with plane.wakeups.listen("sub") as listener:
        for _ in range(20):
            plane.wakeups.notify("sub")
        assert await listener.wait(5)  # woken locally all the same
    await asyncio.sleep(0.05)  # the publisher's turn, had anything been queued
    assert await _publishes(plane.redis) == before


async def test_a_notify_in_one_process_wakes_a_listener_in_another_that_joined(
    plane: ControlPlane, redis_url: str
) -> None:
    assert not plane.wakeups.peers_listen()
    other = await ControlPlane.connect(redis_url, ManualClock())
    try:
        # connect returned once `plane` acknowledged it: no wait, no retry here.
        assert plane.wakeups.peers_listen()
        assert other.wakeups.peers_listen()
        assert await _wakes(plane.wakeups, other.wakeups)
        assert await _wakes(other.wakeups, plane.wakeups)
    finally:
        await other.close()


async def test_publishing_stops_once_the_others_are_gone(redis_url: str) -> None:
    redis = open_redis(redis_url)
    lone, other = WakeUps(peer_check_s=0.05), WakeUps(peer_check_s=0.05)
    try:
        await lone.start_relay(redis)
        assert not lone.peers_listen()
        await other.start_relay(redis)
        assert lone.peers_listen()
        await other.stop_relay()
        for _ in range(100):
            if not lone.peers_listen():
                break
            await asyncio.sleep(0.05)
        assert not lone.peers_listen()
        before = await _publishes(redis)
        lone.notify("sub")
        await asyncio.sleep(0.05)
        assert await _publishes(redis) == before
    finally:
        await other.stop_relay()
        await lone.stop_relay()
        await redis.aclose()


async def test_processes_starting_together_acknowledge_each_other(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    redis = open_redis(redis_url)
    first, second = WakeUps(), WakeUps()
    try:
        await asyncio.gather(first.start_relay(redis), second.start_relay(redis))
        assert first.peers_listen()
        assert second.peers_listen()
        assert "acknowledged" not in caplog.text  # neither waited out the other
        assert await _wakes(first, second)
    finally:
        await first.stop_relay()
        await second.stop_relay()
        await redis.aclose()
