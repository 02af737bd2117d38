"""FIFO groups, deduplication, delays and dead letters against the real Redis."""

from __future__ import annotations

import pytest

from control_plane.clock import ManualClock
from control_plane.deliveries import DEDUP_WINDOW_MS, Delivery, FifoEntry
from control_plane.errors import OverLimit
from control_plane.plane import ControlPlane
from control_plane.redis_keys import SubscriptionKeys

SID = "f1f0f1f0"
VISIBILITY_MS = 30_000


async def _send(plane: ControlPlane, *groups: str, delay_ms: int = 0) -> None:
    """Registers one message per group name given, at the next offsets."""
    base = int(await plane.redis.hget(SubscriptionKeys(SID).cursors, "0") or 0)
    entries = [FifoEntry(base + i, g, None, f"m{base + i}") for i, g in enumerate(groups)]
    await plane.deliveries.register_fifo(SID, entries, delay_ms)


async def _claim(plane: ControlPlane, n: int = 10, max_receives: int = 0) -> list[Delivery]:
    claim = await plane.deliveries.claim(
        SID, {0: 0}, n, VISIBILITY_MS, max_receives=max_receives, fifo=True
    )
    return claim.deliveries


async def _delete(plane: ControlPlane, *deliveries: Delivery) -> None:
    receipts = [plane.deliveries.verify(SID, d.receipt_handle) for d in deliveries]
    assert all(await plane.deliveries.delete(receipts))


async def test_a_group_is_delivered_in_order_and_waits_for_its_in_flight_message(
    plane: ControlPlane,
) -> None:
    await _send(plane, "a", "a", "b", "a")
    first = await _claim(plane, 1)
    assert [d.offset for d in first] == [0]
    assert [d.offset for d in await _claim(plane, 1)] == [2]  # group a is locked
    assert await _claim(plane) == []
    await _delete(plane, *first)
    assert [d.offset for d in await _claim(plane)] == [1, 3]  # a again, in order


async def test_a_claim_that_leaves_no_ready_group_says_when_the_earliest_timer_falls_due(
    plane: ControlPlane, clock: ManualClock
) -> None:
    await _send(plane, "a", "a")
    await _claim(plane, 1)  # the second waits behind the first, in flight, in its group
    claim = await plane.deliveries.claim(SID, {0: 0}, 10, VISIBILITY_MS, fifo=True)
    assert (claim.deliveries, claim.drained) == ([], True)
    assert claim.next_due_ms == clock.now_ms() + VISIBILITY_MS


async def test_an_expired_message_comes_back_before_the_rest_of_its_group(
    plane: ControlPlane, clock: ManualClock
) -> None:
    await _send(plane, "a", "a")
    [first] = await _claim(plane, 1)
    clock.advance(VISIBILITY_MS)
    [again] = await _claim(plane, 1)
    assert (first.offset, again.offset, again.receive_count) == (0, 0, 2)
    await _delete(plane, again)
    [second] = await _claim(plane, 1)
    assert second.offset == 1


async def test_several_messages_of_one_group_in_one_receive_lock_it_until_all_go(
    plane: ControlPlane, clock: ManualClock
) -> None:
    await _send(plane, "a", "a", "a")
    a0, a1, a2 = await _claim(plane)
    await _delete(plane, a0, a1)
    assert await _claim(plane) == []
    await _delete(plane, a2)
    await _send(plane, "a")
    assert [d.offset for d in await _claim(plane)] == [3]


async def test_deduplication_returns_the_first_send_for_five_minutes(
    plane: ControlPlane, clock: ManualClock
) -> None:
    first = await plane.deliveries.register_fifo(SID, [FifoEntry(0, "g", "d1", "id-0")], 0)
    again = await plane.deliveries.register_fifo(SID, [FifoEntry(1, "g", "d1", "id-1")], 0)
    assert (first[0].message_id, first[0].offset, first[0].duplicate) == ("id-0", 0, False)
    assert (again[0].message_id, again[0].offset, again[0].duplicate) == ("id-0", 0, True)
    assert [d.offset for d in await _claim(plane)] == [0]  # the duplicate is never delivered
    clock.advance(DEDUP_WINDOW_MS)
    later = await plane.deliveries.register_fifo(SID, [FifoEntry(2, "h", "d1", "id-2")], 0)
    assert (later[0].message_id, later[0].duplicate) == ("id-2", False)


async def test_a_queue_delay_holds_fifo_messages_back(
    plane: ControlPlane, clock: ManualClock
) -> None:
    await _send(plane, "a", "a", delay_ms=1_000)
    stats = await plane.deliveries.stats(SID, {0: 2}, fifo=True)
    assert (stats.visible, stats.in_flight, stats.delayed) == (0, 0, 2)
    assert await _claim(plane) == []
    clock.advance(1_000)
    assert [d.offset for d in await _claim(plane)] == [0, 1]


async def test_a_dead_letter_holds_its_group_until_it_is_moved(
    plane: ControlPlane, clock: ManualClock
) -> None:
    await _send(plane, "a", "a")
    await _claim(plane, 1, max_receives=1)
    clock.advance(VISIBILITY_MS)
    claim = await plane.deliveries.claim(SID, {0: 0}, 10, VISIBILITY_MS, max_receives=1, fifo=True)
    assert claim.deliveries == []
    [dead] = claim.dead_letters
    assert dead.offset == 0
    assert await _claim(plane, max_receives=1) == []  # the group waits for the move
    assert await plane.deliveries.remove(dead, "dead_lettered")
    assert [d.offset for d in await _claim(plane, max_receives=1)] == [1]


async def test_purge_forgets_every_group(plane: ControlPlane) -> None:
    await _send(plane, "a", "b")
    await _claim(plane, 1)
    assert await plane.deliveries.purge(SID, {0: 2}, 60_000)
    assert await _claim(plane) == []
    await _send(plane, "a")
    assert [d.offset for d in await _claim(plane)] == [2]
    stats = await plane.deliveries.stats(SID, {0: 3}, fifo=True)
    assert (stats.visible, stats.in_flight) == (0, 1)


async def test_fifo_receiving_stops_at_the_in_flight_quota(plane: ControlPlane) -> None:
    await _send(plane, "a", "b", "c")
    claim = await plane.deliveries.claim(SID, {0: 0}, 10, VISIBILITY_MS, fifo=True, max_in_flight=2)
    assert [d.offset for d in claim.deliveries] == [0, 1]
    with pytest.raises(OverLimit):
        await plane.deliveries.claim(SID, {0: 0}, 10, VISIBILITY_MS, fifo=True, max_in_flight=2)


async def test_groups_in_several_partitions_keep_their_order(plane: ControlPlane) -> None:
    # Group a in partition 0 (the layout from before partitions), b in 2, c in 3.
    entries = [
        FifoEntry(0, "a", None, "a0", 0),
        FifoEntry(0, "b", None, "b0", 2),
        FifoEntry(1, "b", None, "b1", 2),
        FifoEntry(0, "c", "dup", "c0", 3),
        FifoEntry(1, "a", None, "a1", 0),
        FifoEntry(1, "c", "dup", "c1", 3),  # a repeat of c0's deduplication key
    ]
    registered = await plane.deliveries.register_fifo(SID, entries, 0)
    assert [(r.message_id, r.partition, r.offset, r.duplicate) for r in registered][-1] == (
        "c0",
        3,
        0,
        True,
    )
    assert not any(r.duplicate for r in registered[:-1])
    assert await plane.deliveries.cursors(SID) == {0: 2, 2: 2, 3: 1}
    taken = await _claim(plane, 10)
    places = sorted((d.partition, d.offset) for d in taken)
    assert places == [(0, 0), (0, 1), (2, 0), (2, 1), (3, 0)]
    by_partition = {p: [d.offset for d in taken if d.partition == p] for p in (0, 2)}
    assert by_partition == {0: [0, 1], 2: [0, 1]}
    assert await plane.deliveries.ack_floor(SID, 2) == 0
    await _delete(plane, *taken)
    assert await plane.deliveries.ack_floor(SID, 2) == 2
    assert await _claim(plane) == []
    assert await plane.redis.exists(SubscriptionKeys(SID).fifo) == 0


async def test_an_expired_message_of_another_partition_comes_back_first(
    plane: ControlPlane, clock: ManualClock
) -> None:
    entries = [FifoEntry(5, "g", None, "m5", 1), FifoEntry(6, "g", None, "m6", 1)]
    await plane.deliveries.register_fifo(SID, entries, 0)
    [first] = await _claim(plane, 1)
    assert (first.partition, first.offset) == (1, 5)
    clock.advance(VISIBILITY_MS)
    [again] = await _claim(plane, 1)
    assert (again.partition, again.offset, again.receive_count) == (1, 5, 2)
    await _delete(plane, again)
    [second] = await _claim(plane, 1)
    assert (second.partition, second.offset) == (1, 6)
