"""The dispatch governor: rounds run side by side while no publish is in flight, one at
a time and paced while clients wait on publishes."""

from __future__ import annotations

import asyncio
import time

from gateway.core.dispatch_governor import IDLE_CONCURRENCY, DispatchGovernor


async def _overlap(governor: DispatchGovernor, rounds: int, round_s: float) -> int:
    """The most rounds that ran at once."""
    running = 0
    most = 0

    async def one() -> None:
        nonlocal running, most
        async with governor.round():
            running += 1
            most = max(most, running)
            await asyncio.sleep(round_s)
            running -= 1

    await asyncio.gather(*(one() for _ in range(rounds)))
    return most


def test_idle_rounds_run_side_by_side() -> None:
    governor = DispatchGovernor()
    assert asyncio.run(_overlap(governor, 20, 0.01)) == IDLE_CONCURRENCY


def test_while_publishing_rounds_run_one_at_a_time_and_leave_most_of_the_time() -> None:
    async def scenario() -> tuple[int, float]:
        governor = DispatchGovernor(busy_share=0.25)

        async def publisher() -> None:
            with governor.publishing():  # one publish in flight throughout
                await asyncio.sleep(10)

        publishing = asyncio.create_task(publisher())
        await asyncio.sleep(0)
        began = time.monotonic()
        most = await _overlap(governor, 4, 0.02)
        elapsed = time.monotonic() - began
        publishing.cancel()
        return most, elapsed

    most, elapsed = asyncio.run(scenario())
    assert most == 1
    # Four rounds of 20 ms at a quarter of the time: each is followed by a 60 ms pause
    # (the last one's included), so they take at least 4 * 80 ms.
    assert elapsed >= 0.3
