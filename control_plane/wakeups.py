"""Wake-ups: a long poll sleeps until its subscription may have something to deliver.

Anything that makes a message deliverable (an append, a delay registered, a visibility
set to zero) calls `notify`; every listener on that subscription wakes at once. A
listener is registered *before* the caller looks for work, so a notify that lands
between the look and the wait is not lost. The caller bounds each wait by the earlier of
its own deadline and the subscription's next due timer, so no one polls in a loop.

Across processes the same signal travels over Redis pub/sub: `notify` also queues the
subscription id for one background publisher (so a send never waits on it), and one
background subscriber wakes local listeners for what other processes publish. Messages
on the channel are "<origin id>:<subscription id>"; a process ignores its own. Pub/sub
is best-effort: a wake-up lost while a connection is down costs a waiting poll its early
return (it still ends at its deadline or its next timer), never a message.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from redis.asyncio import Redis
from redis.exceptions import RedisError

from control_plane.redis_values import as_text

log = logging.getLogger(__name__)

CHANNEL = "tq:wake"
_RETRY_S = 1.0


class Listener:
    def __init__(self) -> None:
        self._event = asyncio.Event()

    def wake(self) -> None:
        self._event.set()

    async def wait(self, timeout_s: float) -> bool:
        """True if woken (since the last wait), False if the timeout passed first."""
        if not self._event.is_set() and timeout_s > 0:
            # asyncio.timeout, not wait_for: on Python 3.11, wait_for swallows a
            # cancellation that arrives as the event is set, and the cancelled task
            # goes on waiting.
            try:
                async with asyncio.timeout(timeout_s):
                    await self._event.wait()
            except TimeoutError:
                return False
        woken = self._event.is_set()
        self._event.clear()
        return woken


class WakeUps:
    """Not thread-safe: use from the event loop that owns it."""

    def __init__(self) -> None:
        self._listeners: defaultdict[str, set[Listener]] = defaultdict(set)
        self._origin = secrets.token_hex(6)
        self._outbox: asyncio.Queue[str] | None = None
        self._tasks: list[asyncio.Task[None]] = []

    def notify(self, subscription_id: str) -> None:
        self._wake_local(subscription_id)
        if self._outbox is not None:
            self._outbox.put_nowait(subscription_id)

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

    async def start_relay(self, redis: Redis) -> None:
        """Starts carrying wake-ups to and from other processes over `redis`."""
        self._outbox = asyncio.Queue()
        subscribed = asyncio.Event()
        self._tasks = [
            asyncio.create_task(self._publish(redis, self._outbox), name="wakeups-publish"),
            asyncio.create_task(self._subscribe(redis, subscribed), name="wakeups-subscribe"),
        ]
        await subscribed.wait()

    async def stop_relay(self) -> None:
        tasks, self._tasks, self._outbox = self._tasks, [], None
        for task in tasks:
            task.cancel()
        for task in tasks:
            with suppress(asyncio.CancelledError):
                await task

    def _wake_local(self, subscription_id: str) -> None:
        for listener in self._listeners.get(subscription_id, ()):
            listener.wake()

    async def _publish(self, redis: Redis, outbox: asyncio.Queue[str]) -> None:
        while True:
            first = await outbox.get()
            pending = {first}
            while not outbox.empty():  # coalesce a burst into one round trip
                pending.add(outbox.get_nowait())
            try:
                async with redis.pipeline(transaction=False) as pipe:
                    for subscription_id in pending:
                        pipe.publish(CHANNEL, f"{self._origin}:{subscription_id}")
                    await pipe.execute()
            except RedisError:
                log.warning("could not publish %d wake-ups; other gateways poll on", len(pending))

    async def _subscribe(self, redis: Redis, subscribed: asyncio.Event) -> None:
        while True:
            try:
                async with redis.pubsub() as pubsub:
                    await pubsub.subscribe(CHANNEL)
                    subscribed.set()
                    async for message in pubsub.listen():
                        if message.get("type") == "message":
                            self._on_message(as_text(message["data"]))
            except RedisError:
                log.warning("wake-up subscription lost; retrying in %.0f s", _RETRY_S)
                subscribed.set()  # start-up must not hang on an unreachable Redis
                await asyncio.sleep(_RETRY_S)

    def _on_message(self, data: str) -> None:
        origin, _, subscription_id = data.partition(":")
        if origin != self._origin and subscription_id:
            self._wake_local(subscription_id)
