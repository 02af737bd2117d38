"""Wake-ups within a process and across processes (two control planes, one Redis)."""

from __future__ import annotations

import asyncio

from control_plane.clock import ManualClock
from control_plane.plane import ControlPlane
from control_plane.wakeups import WakeUps


async def test_a_notify_before_the_wait_is_not_lost() -> None:
    wakeups = WakeUps()
    with wakeups.listen("s") as listener:
        wakeups.notify("s")  # lands between the caller's look for work and its wait
        assert await listener.wait(5)
        assert not await listener.wait(0.01)  # consumed


async def test_a_notify_wakes_only_its_subscription() -> None:
    wakeups = WakeUps()
    with wakeups.listen("s") as mine, wakeups.listen("t") as other:
        wakeups.notify("s")
        assert await mine.wait(5)
        assert not await other.wait(0.01)


async def test_a_notify_in_one_process_wakes_a_listener_in_another(
    plane: ControlPlane, redis_url: str
) -> None:
    other = await ControlPlane.connect(redis_url, ManualClock())
    try:
        with other.wakeups.listen("sub") as listener:
            waiting = asyncio.create_task(listener.wait(10))
            plane.wakeups.notify("sub")
            assert await waiting
    finally:
        await other.close()
