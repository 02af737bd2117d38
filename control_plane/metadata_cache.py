"""A gateway's cache of control-plane metadata (queues, bearer tokens), kept exact by
invalidations over Redis pub/sub.

Every request needs its queue's metadata and, on REST, its bearer token: two Redis round
trips before any work, the largest fixed cost of a small request. Both change rarely, so
a gateway keeps what it read, under the name of the Redis key it read it from.

Exactness: every script that changes a cached key also publishes that key's name on
`CHANNEL`, inside the script, so the invalidation is on its way to every gateway before
the change is acknowledged to whoever made it. Each gateway holds one subscription and
drops the named entry when the message arrives. The cache serves only while that
subscription is live: when it is lost the cache is emptied and every lookup goes to Redis
until it is back. A value read from Redis is kept only if no invalidation arrived while
it was being read (a generation counter), so a read that raced a change never settles in
the cache. Misses are not cached: an unknown queue or token is looked up every time.

So a change is in effect on a gateway once that gateway has read the invalidation, which
Redis sent before it acknowledged the change: a request caused by that acknowledgement
(revoke a token, then call) finds it applied. A lost subscription is noticed when its
connection fails; one cut silently (a partition that leaves the socket open) would not
be, which cannot happen with `tidemq up`'s Redis on the same machine.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import suppress

from redis.asyncio import Redis
from redis.exceptions import RedisError

from control_plane.redis_values import as_text

log = logging.getLogger(__name__)

CHANNEL = "tq:meta"
# A Lua line that publishes the invalidation of key `key_expr` (a Lua expression).
_PUBLISH = "redis.call('PUBLISH', '" + CHANNEL + "', {key})"
MAX_ENTRIES = 10_000
_RETRY_S = 1.0


def publish_invalidation(key_expr: str) -> str:
    """The Lua statement a script runs to invalidate the cached copies of a key."""
    return _PUBLISH.format(key=key_expr)


class MetadataCache:
    """Values by Redis key name. Not thread-safe: use from the event loop that owns it.

    Until `start` has subscribed (and whenever the subscription is down) it holds nothing,
    so an unstarted cache, e.g. in a command-line tool, always reads through.
    """

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self._entries: dict[str, object] = {}
        self._max_entries = max_entries
        self._generation = 0
        self._live = False
        self._task: asyncio.Task[None] | None = None

    @property
    def generation(self) -> int:
        """Read before a Redis lookup; hand it back to `put` with the value read."""
        return self._generation

    async def get(self, key: str) -> object | None:
        if not self._entries:
            return None
        # An invalidation that reached this process with (or before) the request asking
        # is read by the subscriber task in the same loop pass; yielding once lets it run
        # first, so a change acknowledged before the request was sent is never missed.
        await asyncio.sleep(0)
        return self._entries.get(key)

    def put(self, key: str, value: object, generation: int) -> None:
        """Keeps `value` unless an invalidation arrived since `generation` was read, or
        the subscription is not live."""
        if not self._live or generation != self._generation:
            return
        if len(self._entries) >= self._max_entries and key not in self._entries:
            # Evict the oldest entry: dicts keep insertion order.
            del self._entries[next(iter(self._entries))]
        self._entries[key] = value

    def invalidate(self, key: str) -> None:
        self._generation += 1
        self._entries.pop(key, None)

    def _clear(self) -> None:
        self._generation += 1
        self._entries.clear()

    async def start(self, redis: Redis) -> None:
        """Subscribes to the invalidations; returns once subscribed (or once the first
        attempt failed: the cache then reads through until a retry succeeds)."""
        attempted = asyncio.Event()
        self._task = asyncio.create_task(self._subscribe(redis, attempted), name="metadata-cache")
        await attempted.wait()

    async def stop(self) -> None:
        task, self._task = self._task, None
        self._live = False
        self._clear()
        if task is not None:
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task

    async def _subscribe(self, redis: Redis, attempted: asyncio.Event) -> None:
        while True:
            try:
                async with redis.pubsub() as pubsub:
                    await pubsub.subscribe(CHANNEL)
                    # Whatever changed while no subscription was listening is unknown:
                    # start empty.
                    self._clear()
                    self._live = True
                    attempted.set()
                    async for message in pubsub.listen():
                        if message.get("type") == "message":
                            self.invalidate(as_text(message["data"]))
            except (RedisError, OSError):
                log.warning("metadata invalidations lost; reading through for %.0f s", _RETRY_S)
            finally:
                self._live = False
                self._clear()
            attempted.set()
            await asyncio.sleep(_RETRY_S)
