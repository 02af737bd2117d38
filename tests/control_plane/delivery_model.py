"""A reference model of one subscription's deliveries, and a driver that runs each operation
on the real control plane and holds every answer to the model.

The model is plain Python: per message (partition, offset) its state (new, delayed,
received, deleted), the time it becomes visible, its receive count, first receive time
and current delivery number; per partition the log end and the cursor (the next offset
never delivered, docs/control-plane.md); the time of the last purge; and every receipt
ever handed out, current or stale. A "send" is the log's end offset growing by one (the
gateway appends, then passes the new end to `claim`); a delayed send also registers its
delay with `delay()` right after the append.

`DeliveryDriver.check()` compares the whole of Redis's state with the model: the stats,
the ack floors, the next due time, and (through the documented key schema) the cursors,
the timers with their due times, the receive counts and current deliveries, and the
delayed messages the cursor is still to pass over. So a message can never go missing
unnoticed: each undeleted one is either past its partition's cursor and in no timer
(never delivered), or in the timers at exactly the time the model expects.

Used by the hypothesis state machine (test_deliveries_model.py) and by the Redis crash
test (test_redis_durability.py).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import cast

from control_plane.clock import ManualClock
from control_plane.deliveries import Delivery
from control_plane.plane import ControlPlane
from control_plane.redis_keys import SubscriptionKeys
from control_plane.redis_values import as_text


class State(enum.Enum):
    NEW = "new"  # past the cursor, never delivered
    DELAYED = "delayed"  # sent with a delay, not delivered yet: a timer at its due time
    RECEIVED = "received"  # delivered; in flight until visible_at, visible again after
    DELETED = "deleted"


@dataclass
class Message:
    partition: int
    offset: int
    state: State = State.NEW
    visible_at: int = 0  # DELAYED: when the delay ends; RECEIVED: when the timeout ends
    receive_count: int = 0
    first_receive_ms: int | None = None
    delivery_seq: int | None = None  # the current delivery, named by the current receipt
    delayed_at_send: bool = False

    @property
    def key(self) -> tuple[int, int]:
        return (self.partition, self.offset)

    @property
    def member(self) -> str:
        return f"{self.partition}:{self.offset}"

    @property
    def in_timers(self) -> bool:
        return self.state in (State.DELAYED, State.RECEIVED)

    def visible(self, now_ms: int) -> bool:
        """Deliverable now: never delivered, or its delay or visibility timeout is over."""
        return self.state is State.NEW or (self.in_timers and self.visible_at <= now_ms)


@dataclass(frozen=True)
class HeldReceipt:
    """A receipt handle as a client holds it; stale once the message is received again."""

    partition: int
    offset: int
    delivery_seq: int
    handle: str

    @classmethod
    def of(cls, delivery: Delivery) -> HeldReceipt:
        return cls(
            delivery.partition, delivery.offset, delivery.delivery_seq, delivery.receipt_handle
        )


class DeliveriesModel:
    def __init__(self, partitions: Sequence[int]) -> None:
        self.ends = {p: 0 for p in partitions}
        self.cursors = {p: 0 for p in partitions}
        self.messages: dict[tuple[int, int], Message] = {}
        self.held: list[HeldReceipt] = []
        self.last_purge_ms: int | None = None

    def undeleted(self) -> list[Message]:
        return [m for m in self.messages.values() if m.state is not State.DELETED]

    def counts(self, now_ms: int) -> tuple[int, int, int]:
        """(visible, in flight, delayed), as `stats` should report them."""
        visible = in_flight = delayed = 0
        for m in self.undeleted():
            if m.visible(now_ms):
                visible += 1
            elif m.state is State.RECEIVED:
                in_flight += 1
            else:
                delayed += 1
        return visible, in_flight, delayed

    def ack_floor(self, partition: int) -> int:
        """The least of the partition's cursor and its offsets delivered or delayed and not
        deleted (docs/control-plane.md), which is the least of the cursor and every offset
        not deleted (the ones never delivered are past the cursor). So every offset below
        it is deleted; a deleted message still past the cursor (delayed at send, received
        from the timers and deleted before the cursor got there) keeps it at the cursor."""
        return min(
            [self.cursors[partition]]
            + [m.offset for m in self.undeleted() if m.partition == partition]
        )

    def is_current(self, receipt: HeldReceipt) -> bool:
        message = self.messages[(receipt.partition, receipt.offset)]
        return message.state is State.RECEIVED and message.delivery_seq == receipt.delivery_seq

    def held_receipt(self, pick: int, *, current: bool) -> HeldReceipt:
        """The pick-th held receipt (from the newest) among the current ones if `current`
        and there are any, else among all of them (mostly stale ones)."""
        pool = [r for r in self.held if self.is_current(r)] if current else []
        pool = pool or self.held
        return pool[-1 - pick % len(pool)]


class DeliveryDriver:
    """Runs operations on the control plane and asserts each answer against the model."""

    def __init__(
        self,
        plane: ControlPlane,
        clock: ManualClock,
        subscription_id: str,
        partitions: Sequence[int],
    ) -> None:
        self.plane = plane
        self.clock = clock
        self.sid = subscription_id
        self.model = DeliveriesModel(partitions)
        self._seqs: set[int] = set()

    # -- operations ----------------------------------------------------------------------

    async def send(self, partition: int, delay_ms: int | None = None) -> Message:
        model = self.model
        message = Message(partition, model.ends[partition])
        model.ends[partition] += 1
        model.messages[message.key] = message
        if delay_ms is not None:
            due_ms = self.clock.now_ms() + delay_ms
            registered = await self.plane.deliveries.delay(
                self.sid, partition, [message.offset], due_ms
            )
            assert registered == 1, f"the delay of {message.member} was not registered"
            message.state, message.visible_at = State.DELAYED, due_ms
            message.delayed_at_send = True
        return message

    async def receive(
        self, max_messages: int, visibility_ms: int, first_partition: int = 0
    ) -> list[Delivery]:
        model, now = self.model, self.clock.now_ms()
        claim = await self.plane.deliveries.claim(
            self.sid, dict(model.ends), max_messages, visibility_ms, first_partition=first_partition
        )
        assert claim.dead_letters == [], "a dead letter without a redrive policy"
        got = claim.deliveries
        keys = [(d.partition, d.offset) for d in got]
        assert len(set(keys)) == len(keys), f"one claim delivered a message twice: {keys}"
        for d in got:
            m = model.messages.get((d.partition, d.offset))
            assert m is not None, f"delivered {d.partition}:{d.offset}, which was never sent"
            assert m.state is not State.DELETED, f"delivered {m.member} after its delete"
            assert m.visible(now), (
                f"delivered {m.member} while invisible ({m.state.value} until "
                f"{m.visible_at}, now {now})"
            )
            assert d.receive_count == m.receive_count + 1, (
                f"{m.member}: receive count {d.receive_count}, expected {m.receive_count + 1}"
            )
            first = m.first_receive_ms if m.first_receive_ms is not None else now
            assert d.first_receive_ms == first, f"{m.member}: first receive time"
            assert d.delivery_seq not in self._seqs, f"delivery number {d.delivery_seq} reused"
        deliverable = [m for m in model.undeleted() if m.visible(now)]
        assert len(got) == min(max_messages, len(deliverable)), (
            f"claimed {len(got)} of max {max_messages} with {len(deliverable)} deliverable"
        )
        got_keys = set(keys)
        due = [m for m in deliverable if m.in_timers]
        got_due = [m for m in due if m.key in got_keys]
        due_keys = {m.key for m in due}
        got_new = {
            p: sorted(o for (q, o) in keys if q == p and (q, o) not in due_keys) for p in model.ends
        }
        if any(got_new.values()):
            assert len(got_due) == len(due), "new messages were claimed before due timers"
        if got_due and len(got_due) < len(due):
            left = [m.visible_at for m in due if m.key not in got_keys]
            assert max(m.visible_at for m in got_due) <= min(left), "a later timer went first"
        for p, offsets in got_new.items():
            new = sorted(m.offset for m in deliverable if m.partition == p and not m.in_timers)
            assert offsets == new[: len(offsets)], f"partition {p}: not the oldest new messages"
        self._advance_cursors(max_messages, len(got_due), got_new, first_partition)
        for d in got:
            m = model.messages[(d.partition, d.offset)]
            m.state = State.RECEIVED
            m.receive_count += 1
            if m.first_receive_ms is None:
                m.first_receive_ms = now
            m.delivery_seq = d.delivery_seq
            m.visible_at = now + visibility_ms
            self._seqs.add(d.delivery_seq)
            model.held.append(HeldReceipt.of(d))
        # It says it took all there was only when nothing deliverable is left, and then
        # when the earliest timer falls due, its own deliveries' included. It may not say
        # so with messages delayed at send past a cursor (it does not read them all).
        left = [m for m in model.undeleted() if m.visible(now)]
        if claim.drained:
            assert not left, f"drained with {len(left)} deliverable left"
            timers = [m.visible_at for m in model.undeleted() if m.in_timers]
            assert claim.next_due_ms == min(timers, default=None), "a drained claim's next due"
        else:
            delayed_at_send = any(m.delayed_at_send for m in model.undeleted())
            assert left or delayed_at_send, "nothing left, yet not drained"
        return got

    def _advance_cursors(
        self, max_messages: int, n: int, got_new: dict[int, list[int]], first_partition: int
    ) -> None:
        """Where the claim script's scan leaves the cursors: partitions in order from the
        first (wrapping around), each up to its log end, or just past the message that
        filled the claim."""
        order = sorted(self.model.ends)
        if first_partition in order:
            start = order.index(first_partition)
            order = order[start:] + order[:start]
        for p in order:
            if n >= max_messages:
                break
            taken = got_new[p]
            n += len(taken)
            self.model.cursors[p] = (
                taken[-1] + 1 if taken and n >= max_messages else self.model.ends[p]
            )

    async def receive_all(self, visibility_ms: int) -> list[Delivery]:
        """Claims until nothing is deliverable (each claim checked as in `receive`)."""
        everything: list[Delivery] = []
        while got := await self.receive(10, visibility_ms):
            everything += got
        return everything

    async def delete(self, picks: Iterable[HeldReceipt]) -> list[bool]:
        """Deletes with held receipts; a receipt deletes only if it names the current
        delivery of a message not yet deleted: a stale one deletes nothing."""
        picks = list(picks)
        deliveries = self.plane.deliveries
        receipts = [deliveries.verify(self.sid, r.handle) for r in picks]
        expected: list[bool] = []
        gone: set[tuple[int, int]] = set()
        for r in picks:
            ok = self.model.is_current(r) and (r.partition, r.offset) not in gone
            expected.append(ok)
            if ok:
                gone.add((r.partition, r.offset))
        named = [(r.partition, r.offset, r.delivery_seq) for r in picks]
        assert await deliveries.delete(receipts) == expected, f"delete of {named}"
        for key in gone:
            self.model.messages[key].state = State.DELETED
        return expected

    async def change_visibility(self, picks: Iterable[HeldReceipt], timeout_ms: int) -> list[bool]:
        """Only a current receipt of an undeleted message moves its timer."""
        picks = list(picks)
        deliveries = self.plane.deliveries
        now = self.clock.now_ms()
        changes = [(deliveries.verify(self.sid, r.handle), timeout_ms) for r in picks]
        expected = [self.model.is_current(r) for r in picks]
        named = [(r.partition, r.offset, r.delivery_seq) for r in picks]
        assert await deliveries.change_visibility(changes) == expected, f"visibility of {named}"
        for r, ok in zip(picks, expected, strict=True):
            if ok:
                self.model.messages[(r.partition, r.offset)].visible_at = now + timeout_ms
        return expected

    async def purge(self, min_interval_ms: int) -> bool:
        model, now = self.model, self.clock.now_ms()
        expected = model.last_purge_ms is None or now - model.last_purge_ms >= min_interval_ms
        purged = await self.plane.deliveries.purge(self.sid, dict(model.ends), min_interval_ms)
        assert purged == expected, f"purge at {now}, last {model.last_purge_ms}"
        if purged:
            for m in model.messages.values():
                m.state = State.DELETED
            model.cursors = dict(model.ends)
            model.last_purge_ms = now
        return purged

    async def drain(self, visibility_ms: int = 60_000) -> None:
        """Moves time past every timer and receives until empty: every message sent and not
        deleted comes back, once, with its exact receive count."""
        now = self.clock.now_ms()
        latest = max((m.visible_at for m in self.model.undeleted() if m.in_timers), default=now)
        self.clock.advance(max(latest - now, 0))
        expected = {m.key for m in self.model.undeleted()}
        got = [(d.partition, d.offset) for d in await self.receive_all(visibility_ms)]
        assert sorted(got) == sorted(expected), "some undeleted message did not come back"

    # -- the whole state -----------------------------------------------------------------

    async def check(self) -> None:
        model, now = self.model, self.clock.now_ms()
        deliveries = self.plane.deliveries
        stats = await deliveries.stats(self.sid, dict(model.ends))
        assert (stats.visible, stats.in_flight, stats.delayed) == model.counts(now), (
            "stats (visible, in flight, delayed)"
        )
        for p in model.ends:
            floor = await deliveries.ack_floor(self.sid, p)
            assert floor == model.ack_floor(p), f"ack floor of partition {p}"
        timers = {m.member: m.visible_at for m in model.undeleted() if m.in_timers}
        assert await deliveries.next_due_ms(self.sid) == min(timers.values(), default=None)

        keys = SubscriptionKeys(self.sid)
        redis = self.plane.redis
        raw_cursors = await redis.hgetall(keys.cursors)
        raw_timers = await redis.zrange(keys.timers, 0, -1, withscores=True)
        raw_states = await redis.hgetall(keys.deliveries)
        raw_ahead = await redis.smembers(keys.ahead)
        cursors = {p: int(raw_cursors.get(str(p).encode(), 0)) for p in model.ends}
        assert cursors == model.cursors, "cursors"
        due_times = {as_text(m): int(s) for m, s in cast("list[tuple[bytes, float]]", raw_timers)}
        assert due_times == timers, "timers (member: due ms)"
        states = {}
        for member, value in raw_states.items():
            count, seq = as_text(value).split(":")[:2]
            states[as_text(member)] = (int(count), int(seq))
        assert states == {
            m.member: (m.receive_count, m.delivery_seq if m.delivery_seq is not None else 0)
            for m in model.undeleted()
            if m.in_timers
        }, "receive counts and current deliveries"
        # Delayed at send and not yet reached by the cursor: the cursor passes over these
        # (the timers deliver them), whether they are still delayed, received or deleted.
        assert {as_text(m) for m in raw_ahead} == {
            m.member
            for m in model.messages.values()
            if m.delayed_at_send and m.offset >= model.cursors[m.partition]
        }, "members the cursor is to pass over"
        for m in model.undeleted():
            if m.state is State.NEW:
                assert m.offset >= model.cursors[m.partition], f"{m.member} is lost"
