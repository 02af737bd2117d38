"""Waiters' timeouts end a bounded number per turn of the loop, each in the end; a
waiter woken first is not counted against a round."""

from __future__ import annotations

import asyncio

from control_plane.deadlines import Deadlines


async def test_timeouts_due_together_end_a_round_at_a_time() -> None:
    deadlines = Deadlines(per_round=10)
    loop = asyncio.get_running_loop()
    waiters = [loop.create_future() for _ in range(35)]
    ended_in_turn: list[int] = []
    turn = 0

    async def count_turns() -> None:
        nonlocal turn
        while True:
            await asyncio.sleep(0)
            turn += 1

    async def wait(waiter: asyncio.Future[None]) -> None:
        await deadlines.wait(waiter, 0.05)
        ended_in_turn.append(turn)

    counter = asyncio.create_task(count_turns())
    await asyncio.gather(*(wait(w) for w in waiters))
    counter.cancel()
    per_turn = [ended_in_turn.count(t) for t in sorted(set(ended_in_turn))]
    assert sum(per_turn) == 35
    assert max(per_turn) <= 10
    assert len(deadlines) == 0


async def test_a_woken_waiter_returns_at_once_and_costs_no_round() -> None:
    deadlines = Deadlines(per_round=1)
    loop = asyncio.get_running_loop()
    woken, timed_out = loop.create_future(), loop.create_future()
    first = asyncio.create_task(deadlines.wait(woken, 0.01))
    second = asyncio.create_task(deadlines.wait(timed_out, 0.02))
    await asyncio.sleep(0)
    woken.set_result(None)
    await first
    await second  # ends at its own deadline though the round allows one
    assert timed_out.done()
    assert len(deadlines) == 0


async def test_waiters_woken_early_do_not_pile_up_until_their_deadlines() -> None:
    deadlines = Deadlines()
    loop = asyncio.get_running_loop()
    for _ in range(5):
        waiters = [loop.create_future() for _ in range(1000)]
        tasks = [asyncio.create_task(deadlines.wait(w, 3600)) for w in waiters]
        await asyncio.sleep(0)
        for waiter in waiters:
            waiter.set_result(None)  # woken long before the hour is up
        await asyncio.gather(*tasks)
    # 5 000 woke early; their entries went when they outnumbered the rest.
    assert len(deadlines) < 2048
