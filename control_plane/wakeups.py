"""Wake-ups: a long poll sleeps until its subscription may have something to deliver.

An append (or anything else that makes a message deliverable) calls `notify`; every
listener on that subscription wakes at once. A listener is registered *before* the caller
looks for work, so a notify that lands between the look and the wait is not lost. The
caller bounds each wait by the earlier of its own deadline and the subscription's next
due timer, so no one polls in a sleeping loop.

This is the in-process half: it serves one gateway process (the embedded launcher).
Across processes the same `notify` is to be carried by Redis pub/sub.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager


class Listener:
    def __init__(self) -> None:
        self._event = asyncio.Event()

    def wake(self) -> None:
        self._event.set()

    async def wait(self, timeout_s: float) -> bool:
        """True if woken (since the last wait), False if the timeout passed first."""
        if not self._event.is_set() and timeout_s > 0:
            try:
                await asyncio.wait_for(self._event.wait(), timeout_s)
            except TimeoutError:
                return False
        woken = self._event.is_set()
        self._event.clear()
        return woken


class WakeUps:
    """Not thread-safe: use from the event loop that owns it."""

    def __init__(self) -> None:
        self._listeners: defaultdict[str, set[Listener]] = defaultdict(set)

    def notify(self, subscription_id: str) -> None:
        for listener in self._listeners.get(subscription_id, ()):
            listener.wake()

    @contextmanager
    def listen(self, subscription_id: str) -> Iterator[Listener]:
        listener = Listener()
        listeners = self._listeners[subscription_id]
        listeners.add(listener)
        try:
            yield listener
        finally:
            listeners.discard(listener)
            if not listeners:
                self._listeners.pop(subscription_id, None)
