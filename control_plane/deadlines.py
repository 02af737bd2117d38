"""Many waiters' timeouts, ended a bounded number per turn of the event loop.

Thousands of long polls waiting on an idle queue tend to time out together (a client
that opened them at once, with one WaitTimeSeconds). With a timer each, the loop resumed
all of them in one turn: 5 000 polls held every other request up for 150-300 ms as each
one's coroutines unwound a cancellation (docs/performance.md, "Under abuse"). Here the
timeouts wait in one heap under one timer, and each turn of the loop ends at most
`per_round` of those due; the rest end in the turns that follow, a few milliseconds
later each, after the requests in hand have moved on. A waiter is resumed by its future
getting a result, not by a cancellation.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools

DEFAULT_PER_ROUND = 64
# A waiter woken before its deadline stays in the heap until then (removing it from the
# middle is O(n)); past this many such entries, and half the heap, the heap is rebuilt
# without them, so a busy queue's polls (woken by messages, 20 s deadlines) cost no more
# than twice the waiting ones.
_COMPACT_AT = 1024


class Deadlines:
    """Not thread-safe: use from one event loop."""

    def __init__(self, per_round: int = DEFAULT_PER_ROUND) -> None:
        self._per_round = per_round
        # (when, tie-breaker, waiter); a waiter already done (woken) is dropped when due.
        self._due: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._timer: asyncio.TimerHandle | asyncio.Handle | None = None
        self._timer_at = float("inf")
        self._stale = 0  # entries of waiters done before their deadline

    def __len__(self) -> int:
        return len(self._due)

    async def wait(self, waiter: asyncio.Future[None], timeout_s: float) -> None:
        """Waits until `waiter` is done or `timeout_s` has passed (then it is given a
        result of None, in the round its turn comes)."""
        loop = asyncio.get_running_loop()
        when = loop.time() + timeout_s
        heapq.heappush(self._due, (when, next(self._order), waiter))
        if when < self._timer_at:
            self._schedule(loop, when)
        try:
            await waiter
        finally:
            if loop.time() < when:  # woken (or cancelled) early: its entry is stale
                self._stale += 1
                if self._stale >= _COMPACT_AT and self._stale * 2 >= len(self._due):
                    self._compact()

    def _compact(self) -> None:
        self._due = [entry for entry in self._due if not entry[2].done()]
        heapq.heapify(self._due)
        self._stale = 0

    def _schedule(self, loop: asyncio.AbstractEventLoop, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = loop.call_at(when, self._end_round, loop)
        self._timer_at = when

    def _end_round(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = None
        self._timer_at = float("inf")
        now = loop.time()
        ended = 0
        while self._due and self._due[0][0] <= now:
            if ended == self._per_round:
                self._timer = loop.call_soon(self._end_round, loop)  # the next turn
                self._timer_at = now
                return
            _, _, waiter = heapq.heappop(self._due)
            if waiter.done():
                # Counted stale if it ended early; one due now may be uncounted.
                self._stale = max(0, self._stale - 1)
            else:
                waiter.set_result(None)
                ended += 1
        if self._due:
            self._schedule(loop, self._due[0][0])
