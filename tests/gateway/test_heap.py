"""Full collections run on the gateway's schedule: never on their own, every interval,
and right after a burst of requests is over."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from gateway.heap import collecting_on_schedule

WAIT_S = 30.0


@pytest.fixture
def full_collections() -> Iterator[list[float]]:
    """When each full collection ended (monotonic), from now on."""
    ended: list[float] = []

    def record(phase: str, info: dict[str, Any]) -> None:
        if phase == "stop" and info["generation"] == 2:
            ended.append(time.monotonic())

    gc.callbacks.append(record)
    yield ended
    gc.callbacks.remove(record)


async def _until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, "not reached"
        await asyncio.sleep(0.01)


async def test_the_collector_starts_no_full_collection_of_its_own_inside() -> None:
    before = gc.get_threshold()
    async with collecting_on_schedule(lambda: 0):
        young, middle, old = gc.get_threshold()
        assert (young, middle) == before[:2]
        assert old >= 2**31 - 1
    assert gc.get_threshold() == before


async def test_a_full_collection_follows_a_burst(full_collections: list[float]) -> None:
    in_flight = 0
    checks = 0

    def load() -> int:
        nonlocal checks
        checks += 1
        return in_flight

    async with collecting_on_schedule(load, interval_s=3600, burst_requests=100):
        in_flight = 1000
        seen = checks
        await _until(lambda: checks > seen + 1)  # the burst's peak was seen
        assert full_collections == []
        in_flight = 0
        await _until(lambda: bool(full_collections))


async def test_full_collections_run_on_schedule(full_collections: list[float]) -> None:
    async with collecting_on_schedule(lambda: 0, interval_s=0.1):
        await _until(lambda: len(full_collections) >= 2)
