"""Any interleaving of sends (some delayed), receives, deletes with current or stale
receipts, visibility changes, purges and clock moves keeps the real control plane equal to
a plain reference model (hypothesis, rule-based, against the real Redis).

After every step (tests/control_plane/delivery_model.py): no message is delivered while
in flight or delayed, none is lost, receive counts are exact, a stale receipt deletes and
changes nothing, `stats` and `ack_floor` equal the model's. At the end of every case, time
moves past every timer and receiving until empty returns every undeleted message once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from control_plane.clock import ManualClock
from control_plane.deliveries import SubscriptionStats
from control_plane.plane import ControlPlane
from tests.redis_cluster import flush_all

from .delivery_model import DeliveryDriver, HeldReceipt

T = TypeVar("T")
SID = "m0de1"
PARTITIONS = (0, 1)
PURGE_INTERVAL_MS = 10_000
# A purge empties the queue: at most two per case, or little would be left to check;
# attempts within PURGE_INTERVAL_MS of the last one are refused and do not count.
MAX_PURGES = 2
# SQS's default MaxNumberOfMessages is 1; a claim filled by due timers leaves the cursor.
MAX_MESSAGES = st.just(1) | st.integers(1, 10)
# Receipts to use: (a current one?, which one).
PICKS = st.lists(st.tuples(st.booleans(), st.integers(0, 1_000)), min_size=1, max_size=3)


class DeliveriesMachine(RuleBasedStateMachine):
    redis_url = ""  # the test sets it on a subclass

    def __init__(self) -> None:
        super().__init__()
        redis_url = self.redis_url
        flush_all(self.redis_url)
        self.loop = asyncio.new_event_loop()
        self.failed = False
        self.purges = 0
        self.clock = ManualClock()
        plane = self.run(ControlPlane.connect(redis_url, self.clock))
        self.driver = DeliveryDriver(plane, self.clock, SID, PARTITIONS)

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        try:
            return self.loop.run_until_complete(coroutine)
        except BaseException:
            self.failed = True
            raise

    def teardown(self) -> None:
        try:
            if not self.failed:
                self.run(self.driver.drain())
        finally:
            try:
                self.loop.run_until_complete(self.driver.plane.close())
            finally:
                self.loop.close()

    @rule(
        partition=st.sampled_from(PARTITIONS),
        delays=st.lists(st.none() | st.integers(0, 3_000), min_size=1, max_size=4),
    )
    def send(self, partition: int, delays: list[int | None]) -> None:
        """Sends one to four messages, each with or without a delay (None)."""
        for delay_ms in delays:
            self.run(self.driver.send(partition, delay_ms))

    @rule(
        max_messages=MAX_MESSAGES,
        visibility_ms=st.integers(0, 5_000),
        first_partition=st.sampled_from(PARTITIONS),
    )
    def receive(self, max_messages: int, visibility_ms: int, first_partition: int) -> None:
        self.run(self.driver.receive(max_messages, visibility_ms, first_partition))

    @rule(
        max_messages=MAX_MESSAGES,
        visibility_ms=st.integers(0, 5_000),
        keep=st.lists(st.booleans(), max_size=10),
    )
    def consume(self, max_messages: int, visibility_ms: int, keep: list[bool]) -> None:
        """Receives, then deletes what it got at once (a consumer's usual loop), except
        the messages `keep` marks, which it leaves to time out."""
        got = self.run(self.driver.receive(max_messages, visibility_ms))
        kept = (keep + [False] * len(got))[: len(got)]
        done = [HeldReceipt.of(d) for d, k in zip(got, kept, strict=True) if not k]
        if done:
            self.run(self.driver.delete(done))

    @precondition(lambda self: self.driver.model.held)
    @rule(picks=PICKS)
    def delete(self, picks: list[tuple[bool, int]]) -> None:
        receipts = [self.driver.model.held_receipt(i, current=c) for c, i in picks]
        self.run(self.driver.delete(receipts))

    @precondition(lambda self: self.driver.model.held)
    @rule(picks=PICKS, timeout_ms=st.integers(0, 5_000))
    def change_visibility(self, picks: list[tuple[bool, int]], timeout_ms: int) -> None:
        receipts = [self.driver.model.held_receipt(i, current=c) for c, i in picks]
        self.run(self.driver.change_visibility(receipts, timeout_ms))

    @rule(ms=st.integers(0, 6_000))
    def advance_clock(self, ms: int) -> None:
        self.clock.advance(ms)

    @rule(early=st.booleans())
    def advance_to_the_next_timer(self, early: bool) -> None:
        """Moves the clock to when the next delay or visibility timeout ends, or to 1 ms
        before, where an off-by-one error would show."""
        now = self.clock.now_ms()
        due = [m.visible_at for m in self.driver.model.undeleted() if m.in_timers]
        target = min((t for t in due if t > now), default=None)
        if target is not None and target - early > now:
            self.clock.advance(target - early - now)

    @precondition(lambda self: self.purges < MAX_PURGES and len(self.driver.model.messages) > 8)
    @rule()
    def purge(self) -> None:
        if self.run(self.driver.purge(PURGE_INTERVAL_MS)):
            self.purges += 1

    @invariant()
    def equals_the_model(self) -> None:
        self.run(self.driver.check())


def test_deliveries_follow_the_reference_model(redis_url: str) -> None:
    class OnTheTestRedis(DeliveriesMachine):
        pass

    OnTheTestRedis.redis_url = redis_url
    run_state_machine_as_test(
        OnTheTestRedis,
        settings=settings(max_examples=100, stateful_step_count=30, deadline=None),
    )


async def test_a_deleted_delayed_message_is_not_delivered_again(
    plane: ControlPlane, clock: ManualClock
) -> None:
    """Found by the machine above: a message delayed at send, received from the timers
    while the cursor was still below it and then deleted, came back as new once the
    cursor reached it."""
    deliveries = plane.deliveries
    # Send offset 0 with a 1 s delay: the log end becomes 1, then the delay is registered.
    assert await deliveries.delay(SID, 0, [0], clock.now_ms() + 1_000) == 1
    clock.advance(1_000)
    # A receive of one message takes it from the timers; the claim is full before the
    # cursor moves, so the cursor stays at 0, below the message.
    [delivery] = (await deliveries.claim(SID, {0: 1}, 1, 30_000)).deliveries
    assert (delivery.offset, delivery.receive_count) == (0, 1)
    receipt = deliveries.verify(SID, delivery.receipt_handle)
    assert await deliveries.delete([receipt]) == [True]
    assert not await deliveries.claim(SID, {0: 1}, 10, 30_000)
    assert await deliveries.stats(SID, {0: 2}) == SubscriptionStats(1, 0, 0)
