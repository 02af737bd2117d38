"""Claim, delete, visibility, delays, redrive, purge and the ack floor against the real
Redis, with time moved by hand."""

from __future__ import annotations

import gc

import pytest

from control_plane.clock import ManualClock
from control_plane.deliveries import Delivery, any_partition
from control_plane.errors import OverLimit, ReceiptHandleIsInvalid
from control_plane.plane import ControlPlane

SID = "5ub5c41b"
VISIBILITY_MS = 30_000


async def _claim(
    plane: ControlPlane, end: int, n: int = 10, max_receives: int = 0
) -> list[Delivery]:
    claim = await plane.deliveries.claim(SID, {0: end}, n, VISIBILITY_MS, max_receives=max_receives)
    assert not claim.dead_letters
    return claim.deliveries


async def _delete(plane: ControlPlane, *deliveries: Delivery) -> list[bool]:
    receipts = [plane.deliveries.verify(SID, d.receipt_handle) for d in deliveries]
    return await plane.deliveries.delete(receipts)


async def _stats(plane: ControlPlane, end: int) -> tuple[int, int, int]:
    stats = await plane.deliveries.stats(SID, {0: end})
    return stats.visible, stats.in_flight, stats.delayed


async def test_claims_advance_the_cursor_only_up_to_the_log_end(plane: ControlPlane) -> None:
    first = await _claim(plane, 3, 2)
    assert [d.offset for d in first] == [0, 1]
    assert [d.offset for d in await _claim(plane, 3)] == [2]
    assert await _claim(plane, 3) == []
    assert all(d.receive_count == 1 for d in first)


async def test_an_undeleted_message_comes_back_after_its_visibility_timeout(
    plane: ControlPlane, clock: ManualClock
) -> None:
    [first] = await _claim(plane, 1)
    clock.advance(VISIBILITY_MS - 1)
    assert await _claim(plane, 1) == []
    clock.advance(1)
    [again] = await _claim(plane, 1)
    assert (again.offset, again.receive_count) == (0, 2)
    assert again.first_receive_ms == first.first_receive_ms
    assert again.receipt_handle != first.receipt_handle


async def test_a_deleted_message_never_comes_back(plane: ControlPlane, clock: ManualClock) -> None:
    [delivery] = await _claim(plane, 1)
    assert await _delete(plane, delivery) == [True]
    assert await _delete(plane, delivery) == [False]  # already gone: still no error
    clock.advance(10 * VISIBILITY_MS)
    assert await _claim(plane, 1) == []


async def test_an_old_receipt_does_not_delete_a_newer_delivery(
    plane: ControlPlane, clock: ManualClock
) -> None:
    [old] = await _claim(plane, 1)
    clock.advance(VISIBILITY_MS)
    [new] = await _claim(plane, 1)
    assert await _delete(plane, old) == [False]
    assert await _stats(plane, 1) == (0, 1, 0)
    assert await _delete(plane, new) == [True]
    assert await _stats(plane, 1) == (0, 0, 0)


async def test_a_batch_delete_settles_each_receipt_on_its_own(
    plane: ControlPlane, clock: ManualClock
) -> None:
    a, b, c = await _claim(plane, 3)
    clock.advance(VISIBILITY_MS)
    await _claim(plane, 3, 1)  # a is received again: its first receipt is stale
    assert await _delete(plane, a, b, c) == [False, True, True]
    assert await _stats(plane, 3) == (0, 1, 0)


async def test_a_receipt_given_twice_in_a_batch_deletes_once(plane: ControlPlane) -> None:
    a, b = await _claim(plane, 2)
    assert await _delete(plane, a, a, b) == [True, False, True]
    assert await _stats(plane, 2) == (0, 0, 0)
    assert await _claim(plane, 2) == []


async def test_deliveries_of_one_claim_get_distinct_increasing_numbers(
    plane: ControlPlane, clock: ManualClock
) -> None:
    first = await _claim(plane, 3)
    clock.advance(VISIBILITY_MS)
    again = await _claim(plane, 5)  # the three due again first, then two new ones
    seqs = [d.delivery_seq for d in first + again]
    assert seqs == sorted(set(seqs))
    assert [(d.offset, d.receive_count) for d in again] == [(0, 2), (1, 2), (2, 2), (3, 1), (4, 1)]


async def test_change_visibility_to_zero_makes_the_message_visible_now(
    plane: ControlPlane,
) -> None:
    [delivery] = await _claim(plane, 1)
    receipt = plane.deliveries.verify(SID, delivery.receipt_handle)
    assert await plane.deliveries.change_visibility([(receipt, 0)]) == [True]
    [again] = await _claim(plane, 1)
    assert again.receive_count == 2
    assert await plane.deliveries.change_visibility([(receipt, 0)]) == [False]  # stale now


async def test_a_receipt_of_another_subscription_is_refused(plane: ControlPlane) -> None:
    [delivery] = await _claim(plane, 1)
    with pytest.raises(ReceiptHandleIsInvalid):
        plane.deliveries.verify("other", delivery.receipt_handle)


async def test_due_timers_are_claimed_before_new_messages(
    plane: ControlPlane, clock: ManualClock
) -> None:
    await _claim(plane, 1)
    clock.advance(VISIBILITY_MS)
    claimed = await _claim(plane, 3, 2)
    assert [(d.offset, d.receive_count) for d in claimed] == [(0, 2), (1, 1)]
    assert await plane.deliveries.next_due_ms(SID) == clock.now_ms() + VISIBILITY_MS


async def test_a_claim_that_took_all_there_was_says_when_the_earliest_timer_falls_due(
    plane: ControlPlane, clock: ManualClock
) -> None:
    empty = await plane.deliveries.claim(SID, {0: 0}, 10, VISIBILITY_MS)
    assert (empty.deliveries, empty.drained, empty.next_due_ms) == ([], True, None)
    some = await plane.deliveries.claim(SID, {0: 3}, 2, VISIBILITY_MS)
    assert (len(some.deliveries), some.drained) == (2, False)  # the third is left
    rest = await plane.deliveries.claim(SID, {0: 3}, 1, VISIBILITY_MS)
    # All it could take, and all there was; its own delivery's timer counts: the three
    # in flight come back together.
    assert (len(rest.deliveries), rest.drained) == (1, True)
    assert rest.next_due_ms == clock.now_ms() + VISIBILITY_MS
    clock.advance(VISIBILITY_MS)
    again = await plane.deliveries.claim(SID, {0: 3}, 2, VISIBILITY_MS)
    assert (len(again.deliveries), again.drained) == (2, False)  # a third timer is due
    last = await plane.deliveries.claim(SID, {0: 3}, 1, VISIBILITY_MS)
    assert (len(last.deliveries), last.drained) == (1, True)
    await plane.deliveries.delay(SID, 0, [3], clock.now_ms() + 5_000)
    clock.advance(1_000)
    nothing = await plane.deliveries.claim(SID, {0: 4}, 10, VISIBILITY_MS)
    # The delayed message is due before the three in flight become visible again.
    assert (nothing.deliveries, nothing.drained) == ([], True)
    assert nothing.next_due_ms == clock.now_ms() + 4_000
    assert nothing.next_due_ms == await plane.deliveries.next_due_ms(SID)


async def test_a_delayed_message_is_delivered_only_when_due(
    plane: ControlPlane, clock: ManualClock
) -> None:
    due = clock.now_ms() + 5_000
    assert await plane.deliveries.delay(SID, 0, [1], due) == 1
    assert await _stats(plane, 3) == (2, 0, 1)
    assert [d.offset for d in await _claim(plane, 3)] == [0, 2]  # the cursor skips 1
    clock.advance(4_999)
    assert await _claim(plane, 3) == []
    clock.advance(1)
    assert await _stats(plane, 3) == (1, 2, 0)
    [delayed] = await _claim(plane, 3)
    assert (delayed.offset, delayed.receive_count) == (1, 1)
    assert delayed.first_receive_ms == clock.now_ms()


async def test_a_delay_registered_after_a_claim_is_left_to_the_receiver(
    plane: ControlPlane, clock: ManualClock
) -> None:
    # The receive won the race: it claimed offset 0 before the sender registered its delay.
    [claimed] = await _claim(plane, 1)
    assert await plane.deliveries.delay(SID, 0, [0], clock.now_ms() + 5_000) == 0
    # The receiver saw the delay in the record and puts the message back.
    assert await plane.deliveries.defer(claimed, clock.now_ms() + 5_000)
    assert await _stats(plane, 1) == (0, 0, 1)
    clock.advance(5_000)
    [delivered] = await _claim(plane, 1)
    assert (delivered.offset, delivered.receive_count) == (0, 1)


async def test_a_message_received_too_often_comes_back_as_a_dead_letter(
    plane: ControlPlane, clock: ManualClock
) -> None:
    for _ in range(2):
        assert len(await _claim(plane, 1, max_receives=2)) == 1
        clock.advance(VISIBILITY_MS)
    claim = await plane.deliveries.claim(SID, {0: 1}, 10, VISIBILITY_MS, max_receives=2)
    assert claim.deliveries == []
    [dead] = claim.dead_letters
    assert dead.receive_count == 2
    assert await plane.deliveries.remove(dead, "dead_lettered")
    assert not await plane.deliveries.remove(dead, "dead_lettered")
    assert (await plane.deliveries.counters(SID))["dead_lettered"] == 1
    clock.advance(10 * VISIBILITY_MS)
    assert not await plane.deliveries.claim(SID, {0: 1}, 10, VISIBILITY_MS, max_receives=2)


async def test_purge_deletes_everything_at_most_once_a_minute(
    plane: ControlPlane, clock: ManualClock
) -> None:
    await _claim(plane, 2, 1)
    await plane.deliveries.delay(SID, 0, [2], clock.now_ms() + 1000)
    assert await plane.deliveries.purge(SID, {0: 3}, 60_000)
    assert await _stats(plane, 3) == (0, 0, 0)
    assert await plane.deliveries.ack_floor(SID, 0) == 3
    clock.advance(59_999)
    assert not await plane.deliveries.purge(SID, {0: 5}, 60_000)
    assert [d.offset for d in await _claim(plane, 5)] == [3, 4]
    clock.advance(1)
    assert await plane.deliveries.purge(SID, {0: 5}, 60_000)


async def test_seek_back_delivers_again_and_makes_earlier_receipts_stale(
    plane: ControlPlane, clock: ManualClock
) -> None:
    a, b, c, d = await _claim(plane, 4)
    await _delete(plane, a)
    await plane.deliveries.delay(SID, 0, [4], clock.now_ms() + 1000)
    await plane.deliveries.seek(SID, {0: 1})
    assert await plane.deliveries.cursors(SID) == {0: 1}
    assert await _stats(plane, 5) == (4, 0, 0)  # 1..4: nothing in flight or delayed
    again = await _claim(plane, 5)
    assert [(m.offset, m.receive_count) for m in again] == [(1, 1), (2, 1), (3, 1), (4, 1)]
    # The receipts of before the seek name nothing, even for the same messages.
    assert await _delete(plane, b, c, d) == [False, False, False]
    receipts = [plane.deliveries.verify(SID, m.receipt_handle) for m in (b, c)]
    assert await plane.deliveries.change_visibility([(r, 0) for r in receipts]) == [False, False]
    assert await _stats(plane, 5) == (0, 4, 0)
    assert await _delete(plane, *again) == [True] * 4


async def test_seek_forward_skips_what_lies_between(
    plane: ControlPlane, clock: ManualClock
) -> None:
    [first] = await _claim(plane, 10, 1)
    await plane.deliveries.seek(SID, {0: 8})
    assert [m.offset for m in await _claim(plane, 10)] == [8, 9]
    clock.advance(VISIBILITY_MS)
    assert [m.offset for m in await _claim(plane, 10)] == [8, 9]  # 0 is forgotten
    assert await _delete(plane, first) == [False]


async def test_the_ack_floor_is_the_lowest_offset_not_deleted(
    plane: ControlPlane, clock: ManualClock
) -> None:
    assert await plane.deliveries.ack_floor(SID, 0) == 0
    a, b, c = await _claim(plane, 3)
    assert await plane.deliveries.ack_floor(SID, 0) == 0
    await _delete(plane, a, c)
    assert await plane.deliveries.ack_floor(SID, 0) == 1
    await _delete(plane, b)
    assert await plane.deliveries.ack_floor(SID, 0) == 3
    await plane.deliveries.delay(SID, 0, [3], clock.now_ms() + 1000)
    assert await plane.deliveries.ack_floor(SID, 0) == 3  # delayed is not deleted
    await _claim(plane, 5)
    assert await plane.deliveries.ack_floor(SID, 0) == 3


async def test_receiving_stops_at_the_in_flight_quota(
    plane: ControlPlane, clock: ManualClock
) -> None:
    claim = await plane.deliveries.claim(SID, {0: 5}, 10, VISIBILITY_MS, max_in_flight=3)
    assert [d.offset for d in claim.deliveries] == [0, 1, 2]  # only room for three
    with pytest.raises(OverLimit):
        await plane.deliveries.claim(SID, {0: 5}, 10, VISIBILITY_MS, max_in_flight=3)
    await _delete(plane, claim.deliveries[0])
    claim = await plane.deliveries.claim(SID, {0: 5}, 10, VISIBILITY_MS, max_in_flight=3)
    assert [d.offset for d in claim.deliveries] == [3]
    clock.advance(VISIBILITY_MS)  # expired ones are free again: redelivered, in order
    claim = await plane.deliveries.claim(SID, {0: 5}, 10, VISIBILITY_MS, max_in_flight=3)
    assert [(d.offset, d.receive_count) for d in claim.deliveries] == [(1, 2), (2, 2), (3, 2)]


async def test_a_backlog_in_one_partition_does_not_starve_another(plane: ControlPlane) -> None:
    """Partition 0 has a long backlog, partition 3 one message: claims of one message at
    a time reach partition 3 long before partition 0 is drained."""
    ends = {0: 10_000, 1: 0, 2: 0, 3: 1}
    claims = 0
    while True:
        claim = await plane.deliveries.claim(
            SID, ends, 1, VISIBILITY_MS, first_partition=any_partition(ends)
        )
        claims += 1
        [delivery] = claim.deliveries
        if delivery.partition == 3:
            break
        assert claims < 200, "partition 3 was starved"
    stats = await plane.deliveries.stats(SID, ends)
    assert (stats.visible, stats.in_flight) == (10_001 - claims, claims)
    assert (await plane.deliveries.cursors(SID))[3] == 1


async def test_deliveries_and_receipts_are_not_tracked_by_the_garbage_collector(
    plane: ControlPlane,
) -> None:
    """The signer keeps every handle it issued with its delivery; tracked, tens of
    thousands of them were walked by every young collection (docs/performance.md)."""
    deliveries = await _claim(plane, 5, 5)
    assert len(deliveries) == 5
    assert not any(gc.is_tracked(d) for d in deliveries)
    receipt = plane.deliveries.verify(SID, deliveries[0].receipt_handle)
    assert not gc.is_tracked(receipt)
    assert await _delete(plane, *deliveries) == [True] * 5
