from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from control_plane.clock import ManualClock
from control_plane.plane import ControlPlane


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def plane(redis_url: str, clock: ManualClock) -> AsyncIterator[ControlPlane]:
    control = await ControlPlane.connect(redis_url, clock)
    yield control
    await control.close()
