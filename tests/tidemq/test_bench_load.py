"""The load generator's fixed-rate loop and the bench's verdicts, without a server: a
stall in the system under test must show in the latency of every send it held back
(no coordinated omission), and the single-publish bound follows the ceiling."""

from __future__ import annotations

import asyncio
import itertools
import math
import time

import pytest

from tidemq.bench import load
from tidemq.bench.e2e import index_of, indexed_body
from tidemq.bench.load import Limits, Measured, open_loop, scheduled_loop
from tidemq.bench.report import single_p99_bound_ms
from tidemq.bench.workloads import MESSAGE_BYTES

RATE = 100.0
STALL_S = 0.3


def test_a_stall_counts_for_every_send_it_held_back() -> None:
    """The 11th operation (due at 100 ms) blocks the event loop for 300 ms, as a stalled
    process would: the sends due at 110-300 ms go out only after it, each at least 100 ms
    late. Timed from their intended send times they show it; a loop timing from the
    actual send would see them fast (coordinated omission)."""

    async def run() -> Measured:
        calls = itertools.count()

        async def step() -> int:
            if next(calls) == 10:
                time.sleep(STALL_S)  # noqa: ASYNC251 - the stall is the point
            return 1

        return await open_loop("stall", step, RATE, Limits(100, 1.0, 0.0))

    measured = asyncio.run(run())
    assert measured.messages == 100
    assert measured.errors == 0
    held_back = [latency for latency in measured.latencies_ms if latency >= 100.0]
    assert len(held_back) >= 20, sorted(measured.latencies_ms)[-25:]
    assert measured.percentile(99) >= 100.0


def test_steps_are_handed_their_intended_send_times() -> None:
    async def run() -> list[float]:
        intended: list[float] = []

        async def step(intended_s: float) -> int:
            intended.append(intended_s)
            return 1

        await scheduled_loop("schedule", step, RATE, Limits(20, 1.0, 0.0))
        return intended

    intended = asyncio.run(run())
    assert len(intended) == 20
    gaps = [later - earlier for earlier, later in itertools.pairwise(intended)]
    assert all(math.isclose(gap, 1 / RATE, rel_tol=1e-6) for gap in gaps), gaps


def test_unanswered_sends_count_as_errors_not_as_missing_samples(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(load, "UNANSWERED_AFTER_S", 0.2)

    async def run() -> Measured:
        async def step() -> int:
            await asyncio.sleep(3600)
            return 1

        return await open_loop("hang", step, RATE, Limits(5, 1.0, 0.0))

    measured = asyncio.run(run())
    assert measured.errors == 5
    assert measured.first_error is not None
    assert "no answer" in measured.first_error


def test_the_single_publish_bound_is_twice_the_ceiling_or_5_ms() -> None:
    assert single_p99_bound_ms(1.2) == 5.0
    assert single_p99_bound_ms(2.5) == 5.0
    assert single_p99_bound_ms(4.0) == 8.0
    assert single_p99_bound_ms(math.nan) == 5.0


def test_e2e_bodies_carry_their_index_at_the_message_size() -> None:
    for index in (0, 7, 123_456_789):
        body = indexed_body(index)
        assert len(body.encode()) == MESSAGE_BYTES
        assert index_of(body) == index
    assert index_of("not one of ours") is None
