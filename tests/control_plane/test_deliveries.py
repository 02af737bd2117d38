"""Claim, delete and visibility against the real Redis, with time moved by hand."""

from __future__ import annotations

import pytest

from control_plane.clock import ManualClock
from control_plane.errors import ReceiptHandleIsInvalid
from control_plane.plane import ControlPlane

SID = "5ub5c41b"
VISIBILITY_MS = 30_000


async def test_claims_advance_the_cursor_only_up_to_the_log_end(plane: ControlPlane) -> None:
    first = await plane.deliveries.claim(SID, {0: 3}, 2, VISIBILITY_MS)
    assert [d.offset for d in first] == [0, 1]
    second = await plane.deliveries.claim(SID, {0: 3}, 10, VISIBILITY_MS)
    assert [d.offset for d in second] == [2]
    assert await plane.deliveries.claim(SID, {0: 3}, 10, VISIBILITY_MS) == []
    assert all(d.receive_count == 1 for d in first + second)


async def test_an_undeleted_message_comes_back_after_its_visibility_timeout(
    plane: ControlPlane, clock: ManualClock
) -> None:
    [first] = await plane.deliveries.claim(SID, {0: 1}, 1, VISIBILITY_MS)
    clock.advance(VISIBILITY_MS - 1)
    assert await plane.deliveries.claim(SID, {0: 1}, 1, VISIBILITY_MS) == []
    clock.advance(1)
    [again] = await plane.deliveries.claim(SID, {0: 1}, 1, VISIBILITY_MS)
    assert (again.offset, again.receive_count) == (0, 2)
    assert again.first_receive_ms == first.first_receive_ms
    assert again.receipt_handle != first.receipt_handle


async def test_a_deleted_message_never_comes_back(plane: ControlPlane, clock: ManualClock) -> None:
    [delivery] = await plane.deliveries.claim(SID, {0: 1}, 1, VISIBILITY_MS)
    assert await plane.deliveries.delete(plane.deliveries.verify(SID, delivery.receipt_handle))
    clock.advance(10 * VISIBILITY_MS)
    assert await plane.deliveries.claim(SID, {0: 1}, 1, VISIBILITY_MS) == []


async def test_an_old_receipt_does_not_delete_a_newer_delivery(
    plane: ControlPlane, clock: ManualClock
) -> None:
    [old] = await plane.deliveries.claim(SID, {0: 1}, 1, VISIBILITY_MS)
    clock.advance(VISIBILITY_MS)
    [new] = await plane.deliveries.claim(SID, {0: 1}, 1, VISIBILITY_MS)
    assert not await plane.deliveries.delete(plane.deliveries.verify(SID, old.receipt_handle))
    stats = await plane.deliveries.stats(SID, {0: 1})
    assert (stats.visible, stats.in_flight) == (0, 1)
    assert await plane.deliveries.delete(plane.deliveries.verify(SID, new.receipt_handle))
    stats = await plane.deliveries.stats(SID, {0: 1})
    assert (stats.visible, stats.in_flight) == (0, 0)


async def test_change_visibility_to_zero_makes_the_message_visible_now(
    plane: ControlPlane,
) -> None:
    [delivery] = await plane.deliveries.claim(SID, {0: 1}, 1, VISIBILITY_MS)
    receipt = plane.deliveries.verify(SID, delivery.receipt_handle)
    assert await plane.deliveries.change_visibility(receipt, 0)
    [again] = await plane.deliveries.claim(SID, {0: 1}, 1, VISIBILITY_MS)
    assert again.receive_count == 2
    assert not await plane.deliveries.change_visibility(receipt, 0)  # stale now


async def test_a_receipt_of_another_subscription_is_refused(plane: ControlPlane) -> None:
    [delivery] = await plane.deliveries.claim(SID, {0: 1}, 1, VISIBILITY_MS)
    with pytest.raises(ReceiptHandleIsInvalid):
        plane.deliveries.verify("other", delivery.receipt_handle)


async def test_due_timers_are_claimed_before_new_messages(
    plane: ControlPlane, clock: ManualClock
) -> None:
    await plane.deliveries.claim(SID, {0: 1}, 1, VISIBILITY_MS)
    clock.advance(VISIBILITY_MS)
    claimed = await plane.deliveries.claim(SID, {0: 3}, 2, VISIBILITY_MS)
    assert [(d.offset, d.receive_count) for d in claimed] == [(0, 2), (1, 1)]
    assert await plane.deliveries.next_due_ms(SID) == clock.now_ms() + VISIBILITY_MS
