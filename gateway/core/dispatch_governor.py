"""How much of the gateway's time delivery to subscriptions may take while clients publish.

Fan-out multiplies work: a publish to a topic with 100 queue subscriptions is one append
for the publisher and 100 for the dispatcher, on the same event loop. Left alone, the
dispatcher's rounds crowd the publishers' requests out (measured: with 100 subscriptions
publishing fell to 0.04 of its rate with one). Publishing is what clients wait on;
delivery runs behind it and catches up when publishing lets up.

So publishing has priority. While publishes are in flight (a client is waiting on one),
dispatch rounds run one at a time, and after each the dispatcher pauses long enough that
rounds fill at most `busy_share` of the time. When no publish is in flight, up to
IDLE_CONCURRENCY rounds run at once, unpaced: at a modest publish rate the dispatcher
keeps up at once (low publish -> queue latency), and a backlog drains at full speed
whenever the publishers pause.

Only deliveries to queues are governed: their rounds are work on this process (reading
the topic's log, appending to the queues), so their time is what they cost. A webhook
round mostly waits on the endpoint, and pacing by its time would stall every other
subscription behind a slow endpoint.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

DEFAULT_BUSY_SHARE = 0.15
IDLE_CONCURRENCY = 8


class DispatchGovernor:
    def __init__(self, busy_share: float = DEFAULT_BUSY_SHARE) -> None:
        self._busy_share = busy_share
        self._publishing = 0
        self._rounds = asyncio.Semaphore(IDLE_CONCURRENCY)
        self._paced = asyncio.Lock()

    @contextmanager
    def publishing(self) -> Iterator[None]:
        """Around every publish: a client is waiting on it."""
        self._publishing += 1
        try:
            yield
        finally:
            self._publishing -= 1

    def busy(self) -> bool:
        return self._publishing > 0

    @asynccontextmanager
    async def round(self) -> AsyncIterator[None]:
        """One dispatch round (a batch delivered to one subscription)."""
        async with self._rounds:
            if not self.busy():
                yield
                return
            async with self._paced:
                began = time.monotonic()
                yield
                spent_s = time.monotonic() - began
                if self.busy():
                    await asyncio.sleep(spent_s * (1 - self._busy_share) / self._busy_share)
