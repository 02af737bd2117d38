"""FIFO queues against a reference model (hypothesis, rule-based, the real Redis).

Any interleaving of sends to a few groups (some with deduplication ids), receives,
deletes with current or stale receipts, visibility changes and clock moves keeps:
- group order: a receive returns, per group, the group's first undeleted messages in
  offset order, and nothing of a group that has a message in flight;
- progress: a receive returns something whenever some group is free and has messages;
- exact receive counts, stale receipts that delete nothing, five-minute deduplication;
- at the end, with time past every timeout, everything undeleted comes out, each group
  in order, each message once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule, run_state_machine_as_test

from control_plane.clock import ManualClock
from control_plane.deliveries import DEDUP_WINDOW_MS, Delivery, FifoEntry
from control_plane.plane import ControlPlane
from tests.redis_cluster import flush_all

T = TypeVar("T")
SID = "f1f0m0de1"
GROUPS = ("a", "b", "c")
DEDUP_KEYS = (None, None, "d1", "d2")


@dataclass
class Message:
    offset: int
    group: str
    deleted: bool = False
    receive_count: int = 0
    seq: int = -1  # the current delivery's number
    in_flight_until: int = -1  # ms; in flight while now < this


class FifoMachine(RuleBasedStateMachine):
    redis_url = ""  # the test sets it on a subclass

    def __init__(self) -> None:
        super().__init__()
        flush_all(self.redis_url)
        self.loop = asyncio.new_event_loop()
        self.clock = ManualClock()
        self.plane = self.run(ControlPlane.connect(self.redis_url, self.clock))
        self.messages: list[Message] = []
        self.next_offset = 0
        self.dedup: dict[str, tuple[int, int]] = {}  # key -> (first offset, lapses at ms)
        self.receipts: list[tuple[Delivery, int]] = []  # every receipt handed out, with seq

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(coroutine)

    def teardown(self) -> None:
        try:
            self.clock.advance(10 * 60 * 1000)
            expected = {
                group: [m.offset for m in self.messages if m.group == group and not m.deleted]
                for group in GROUPS
            }
            drained: dict[str, list[int]] = {g: [] for g in GROUPS}
            while delivered := self.receive_checked(10, 60_000):
                for d in delivered:
                    drained[self.messages[d.offset].group].append(d.offset)
                self.delete_checked([(d, d.delivery_seq) for d in delivered])
            assert drained == expected, "every undeleted message, each group in order, once"
        finally:
            try:
                self.run(self.plane.close())
            finally:
                self.loop.close()

    # -- the model's view ----------------------------------------------------------------

    def in_flight(self, message: Message) -> bool:
        return not message.deleted and self.clock.now_ms() < message.in_flight_until

    def free_groups_with_messages(self) -> set[str]:
        undeleted = [m for m in self.messages if not m.deleted]
        locked = {m.group for m in undeleted if self.in_flight(m)}
        return {m.group for m in undeleted} - locked

    # -- checked operations --------------------------------------------------------------

    def receive_checked(self, max_messages: int, visibility_ms: int) -> list[Delivery]:
        free = self.free_groups_with_messages()
        claim = self.run(
            self.plane.deliveries.claim(SID, {0: 0}, max_messages, visibility_ms, fifo=True)
        )
        delivered = claim.deliveries
        assert not claim.dead_letters
        assert bool(delivered) == bool(free), "a free group with messages must be served"
        by_group: dict[str, list[int]] = {}
        for d in delivered:
            by_group.setdefault(self.messages[d.offset].group, []).append(d.offset)
        for group, offsets in by_group.items():
            assert group in free, f"group {group} was served with a message in flight"
            waiting = [m.offset for m in self.messages if m.group == group and not m.deleted]
            assert offsets == waiting[: len(offsets)], "a group came out of order"
        for d in delivered:
            message = self.messages[d.offset]
            message.receive_count += 1
            assert d.receive_count == message.receive_count
            message.seq = d.delivery_seq
            message.in_flight_until = self.clock.now_ms() + visibility_ms
            self.receipts.append((d, d.delivery_seq))
        # It says it took all there was exactly when every group with messages left is
        # locked by one in flight (a visibility timeout of 0 locks none).
        assert claim.drained == (not self.free_groups_with_messages()), "drained flag"
        return delivered

    def delete_checked(self, picked: list[tuple[Delivery, int]]) -> None:
        receipts = [self.plane.deliveries.verify(SID, d.receipt_handle) for d, _ in picked]
        results = self.run(self.plane.deliveries.delete(receipts))
        for (delivery, seq), deleted in zip(picked, results, strict=True):
            message = self.messages[delivery.offset]
            current = not message.deleted and message.seq == seq
            assert deleted == current, "only a current receipt deletes"
            if current:
                message.deleted = True

    # -- rules ---------------------------------------------------------------------------

    @rule(
        sends=st.lists(
            st.tuples(st.sampled_from(GROUPS), st.sampled_from(DEDUP_KEYS)), min_size=1, max_size=4
        )
    )
    def send(self, sends: list[tuple[str, str | None]]) -> None:
        now = self.clock.now_ms()
        entries = []
        for group, dedup in sends:
            entries.append(FifoEntry(self.next_offset, group, dedup, f"id-{self.next_offset}"))
            self.next_offset += 1
        registered = self.run(self.plane.deliveries.register_fifo(SID, entries, 0))
        for entry, known in zip(entries, registered, strict=True):
            first = self.dedup.get(entry.dedup_key or "")
            if entry.dedup_key and first and first[1] > now:
                assert (known.offset, known.duplicate) == (first[0], True)
                self.messages.append(Message(entry.offset, entry.group_id, deleted=True))
                continue  # appended to the log, never delivered: a deleted one to the model
            assert (known.offset, known.duplicate) == (entry.offset, False)
            if entry.dedup_key:
                self.dedup[entry.dedup_key] = (entry.offset, now + DEDUP_WINDOW_MS)
            self.messages.append(Message(entry.offset, entry.group_id))

    @rule(max_messages=st.integers(1, 10), visibility_ms=st.integers(0, 5_000))
    def receive(self, max_messages: int, visibility_ms: int) -> None:
        self.receive_checked(max_messages, visibility_ms)

    @precondition(lambda self: self.receipts)
    @rule(picks=st.lists(st.integers(0, 1_000), min_size=1, max_size=3))
    def delete(self, picks: list[int]) -> None:
        self.delete_checked([self.receipts[i % len(self.receipts)] for i in picks])

    @precondition(lambda self: self.receipts)
    @rule(pick=st.integers(0, 1_000), timeout_ms=st.integers(0, 5_000))
    def change_visibility(self, pick: int, timeout_ms: int) -> None:
        delivery, seq = self.receipts[pick % len(self.receipts)]
        message = self.messages[delivery.offset]
        if not self.in_flight(message) and message.seq == seq:
            return  # timed out but not yet settled by a claim: not a case the model judges
        receipt = self.plane.deliveries.verify(SID, delivery.receipt_handle)
        [changed] = self.run(self.plane.deliveries.change_visibility([(receipt, timeout_ms)]))
        assert changed == (self.in_flight(message) and message.seq == seq)
        if changed:
            message.in_flight_until = self.clock.now_ms() + timeout_ms

    @rule(ms=st.integers(0, 6_000) | st.just(DEDUP_WINDOW_MS))
    def advance_clock(self, ms: int) -> None:
        self.clock.advance(ms)


def test_fifo_queues_follow_the_reference_model(redis_url: str) -> None:
    class OnTheTestRedis(FifoMachine):
        pass

    OnTheTestRedis.redis_url = redis_url
    run_state_machine_as_test(
        OnTheTestRedis,
        settings=settings(max_examples=60, stateful_step_count=30, deadline=None),
    )
