"""Clocks, passed in everywhere time matters so tests can move time instead of sleeping."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """Wall-clock milliseconds since the Unix epoch."""

    def now_ms(self) -> int: ...


class SystemClock:
    """The real wall clock."""

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000


class ManualClock:
    """A clock that only moves when told to; for tests of timeouts, delays and leases."""

    def __init__(self, start_ms: int = 1_700_000_000_000) -> None:
        self._now_ms = start_ms

    def now_ms(self) -> int:
        return self._now_ms

    def advance(self, delta_ms: int) -> None:
        if delta_ms < 0:
            raise ValueError("a clock never goes back")
        self._now_ms += delta_ms
