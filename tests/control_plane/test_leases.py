"""Partition leases and their fencing epochs against the real Redis, time moved by hand."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from control_plane.clock import ManualClock
from control_plane.leases import Lease, Leases
from control_plane.plane import ControlPlane

SID = "57ea4d00"
TTL_MS = 10_000


@pytest.fixture
def leases(plane: ControlPlane, clock: ManualClock) -> Leases:
    return Leases(plane.redis, clock)


async def acquired(leases: Leases, node_id: str, partition: int = 0) -> Lease:
    lease = await leases.acquire(SID, partition, node_id, TTL_MS)
    assert lease is not None
    return lease


async def test_a_free_partition_is_granted_with_epoch_one(
    leases: Leases, clock: ManualClock
) -> None:
    lease = await acquired(leases, "a")
    assert lease == Lease(SID, 0, "a", 1, clock.now_ms() + TTL_MS, TTL_MS)
    assert await leases.holder(SID, 0) == lease
    assert await leases.check(lease)


async def test_a_held_partition_is_refused_to_another_node(leases: Leases) -> None:
    lease = await acquired(leases, "a")
    assert await leases.acquire(SID, 0, "b", TTL_MS) is None
    assert await leases.holder(SID, 0) == lease


async def test_acquiring_again_renews_under_the_same_epoch(
    leases: Leases, clock: ManualClock
) -> None:
    first = await acquired(leases, "a")
    clock.advance(TTL_MS - 1)
    again = await acquired(leases, "a")
    assert (again.epoch, again.expires_ms) == (first.epoch, clock.now_ms() + TTL_MS)
    assert await leases.check(first)  # the same token: still valid


async def test_the_timeline_of_a_paused_holder(leases: Leases, clock: ManualClock) -> None:
    """The race of the leases module docstring, second by second."""
    start_ms = clock.now_ms()

    def at(second: int) -> None:
        clock.advance(start_ms + second * 1_000 - clock.now_ms())

    a = await acquired(leases, "a")
    assert a.expires_ms == start_ms + 10_000
    at(3)
    renewed = await leases.renew(a)
    assert renewed is not None
    assert (renewed.epoch, renewed.expires_ms) == (a.epoch, start_ms + 13_000)
    at(4)
    assert await leases.check(renewed)
    at(13)  # A is paused; its lease ends
    assert await leases.holder(SID, 0) is None
    at(14)
    b = await acquired(leases, "b")
    assert b.epoch == a.epoch + 1
    at(15)
    assert await leases.check(b)
    at(17)  # A wakes up
    assert await leases.renew(renewed) is None
    assert not await leases.check(renewed)
    assert not await leases.release(renewed)  # and B's lease is left alone
    assert await leases.acquire(SID, 0, "a", TTL_MS) is None
    assert await leases.holder(SID, 0) == b
    at(24)  # B's lease ends unrenewed: A may come back, at a higher epoch still
    again = await acquired(leases, "a")
    assert again.epoch == b.epoch + 1


async def test_a_lease_ends_at_the_instant_its_ttl_does(leases: Leases, clock: ManualClock) -> None:
    lease = await acquired(leases, "a")
    clock.advance(TTL_MS - 1)
    assert await leases.check(lease)
    clock.advance(1)
    assert not await leases.check(lease)
    assert await leases.renew(lease) is None


async def test_releasing_frees_the_partition_and_keeps_the_epoch(leases: Leases) -> None:
    a = await acquired(leases, "a")
    assert await leases.release(a)
    assert not await leases.check(a)
    assert await leases.holder(SID, 0) is None
    assert not await leases.release(a)
    b = await acquired(leases, "b")
    assert b.epoch == a.epoch + 1


async def test_reacquiring_after_expiry_starts_a_new_tenure(
    leases: Leases, clock: ManualClock
) -> None:
    old = await acquired(leases, "a")
    clock.advance(TTL_MS)
    new = await acquired(leases, "a")
    assert new.epoch == old.epoch + 1
    assert not await leases.check(old)  # a writer still holding the old lease is fenced
    assert await leases.check(new)


async def test_partitions_and_streams_are_leased_independently(leases: Leases) -> None:
    p0 = await acquired(leases, "a", partition=0)
    p1 = await acquired(leases, "b", partition=1)
    other = await leases.acquire("0the5", 0, "b", TTL_MS)
    assert other is not None
    assert (p0.epoch, p1.epoch, other.epoch) == (1, 1, 1)
    assert await leases.check(p0)
    assert await leases.check(p1)


async def test_large_clock_values_are_kept_exactly(plane: ControlPlane) -> None:
    far = ManualClock(start_ms=4_000_000_000_000)
    leases = Leases(plane.redis, far)
    lease = await acquired(leases, "a")
    far.advance(TTL_MS - 1)
    renewed = await leases.renew(lease)
    assert renewed is not None
    assert renewed.expires_ms == far.now_ms() + TTL_MS
    assert await leases.holder(SID, 0) == renewed


async def test_node_ids_may_contain_colons(leases: Leases) -> None:
    lease = await acquired(leases, "10.0.0.7:7001:b0f3")
    assert await leases.holder(SID, 0) == lease
    assert await leases.check(lease)


@pytest.mark.parametrize(
    ("node_id", "ttl_ms", "error"),
    [("", TTL_MS, "empty"), ("a", 0, "positive"), ("a", -5, "positive")],
)
async def test_bad_arguments_are_refused(
    leases: Leases, node_id: str, ttl_ms: int, error: str
) -> None:
    with pytest.raises(ValueError, match=error):
        await leases.acquire(SID, 0, node_id, ttl_ms)


# -- any interleaving of several nodes -------------------------------------------------

NODES = ["a", "b", "c"]
operations = st.one_of(
    st.tuples(st.just("acquire"), st.sampled_from(NODES), st.integers(1, 3 * TTL_MS)),
    st.tuples(st.just("renew"), st.sampled_from(NODES), st.just(0)),
    st.tuples(st.just("release"), st.sampled_from(NODES), st.just(0)),
    st.tuples(st.just("advance"), st.just(""), st.integers(0, 2 * TTL_MS)),
)
stream_ids = (f"prop{i}" for i in itertools.count())


@dataclass
class Model:
    """What the lease of one partition should be: the last grant, unless released."""

    current: Lease | None = None
    top_epoch: int = 0

    def live(self, now_ms: int) -> Lease | None:
        if self.current is None or self.current.expires_ms <= now_ms:
            return None
        return self.current


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(operations, max_size=30))
async def test_at_most_one_current_holder_and_epochs_never_fall(
    plane: ControlPlane, steps: list[tuple[str, str, int]]
) -> None:
    clock = ManualClock()
    leases = Leases(plane.redis, clock)
    stream_id = next(stream_ids)  # a fresh partition for every example
    model = Model()
    held: dict[str, list[Lease]] = {node: [] for node in NODES}  # every lease each was given
    for op, node, amount in steps:
        now_ms = clock.now_ms()
        live = model.live(now_ms)
        if op == "advance":
            clock.advance(amount)
        elif op == "acquire":
            lease = await leases.acquire(stream_id, 0, node, amount)
            if live is not None and live.node_id != node:
                assert lease is None
            else:
                assert lease is not None
                expected = live.epoch if live is not None else model.top_epoch + 1
                assert lease.epoch == expected
                assert lease.expires_ms == now_ms + amount
                model.current, model.top_epoch = lease, lease.epoch
                held[node].append(lease)
        elif held[node]:
            last = held[node][-1]
            is_current = live is not None and (live.node_id, live.epoch) == (node, last.epoch)
            if op == "renew":
                renewed = await leases.renew(last)
                assert (renewed is not None) == is_current
                if renewed is not None:
                    assert renewed.epoch == last.epoch
                    model.current = renewed
                    held[node].append(renewed)
            else:
                assert await leases.release(last) == is_current
                if is_current:
                    model.current = None

        live = model.live(clock.now_ms())
        assert await leases.holder(stream_id, 0) == live
        valid = [
            lease for leases_of in held.values() for lease in leases_of if await leases.check(lease)
        ]
        # Only the current tenure's token checks out; renewals share it, so one holder.
        assert {(lease.node_id, lease.epoch) for lease in valid} == (
            {(live.node_id, live.epoch)} if live is not None else set()
        )
        epochs = [lease.epoch for leases_of in held.values() for lease in leases_of]
        assert max(epochs, default=0) == model.top_epoch
