"""A gateway's cache of control-plane metadata (queues, bearer tokens), kept exact by
invalidations over Redis pub/sub.

Every request needs its queue's metadata and, on REST, its bearer token: two Redis round
trips before any work, the largest fixed cost of a small request. Both change rarely, so
a gateway keeps what it read, under the name of the Redis key it read it from.

Exactness: every script that changes a cached key also publishes "<nonce> <key name>" on
`CHANNEL`, inside the script, and answers how many gateways received it (on a Redis
Cluster, where PUBLISH counts one node's subscribers, the writer counts every node's:
control_plane/acked_pubsub.py). Each gateway
holds one subscription; it drops the named entry, then acknowledges by pushing to the
list `tq:meta-ack:<nonce>`. Whoever made the change waits for those acknowledgements
(`wait_applied`, at most ACK_WAIT_S: control_plane/acked_pubsub.py) before it
returns: once a revoke, a deletion or an attribute change has returned, every gateway has
applied it, so the next request, on any gateway, sees it. (Pub/sub alone is not enough:
the change's reply can reach its caller, and the caller's next request reach a gateway,
before that gateway has read the message.)

The cache serves only while its subscription is live: when it is lost the cache is
emptied and every lookup goes to Redis until it is back, and a gateway that is not
subscribed is not counted. A value read from Redis is kept only if no invalidation
arrived while it was being read (a generation counter), so a read that raced a change
never settles in the cache. Misses are not cached: an unknown queue or token is looked
up every time. A subscription cut silently (a partition that leaves the socket open)
would be counted but not acknowledge: the writer then gives up waiting after ACK_WAIT_S
and logs it; with `tidemq up`'s Redis on the same machine that cannot happen.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from contextlib import suppress

from control_plane import acked_pubsub
from control_plane.acked_pubsub import acknowledge, wait_acknowledged
from control_plane.redis_client import REDIS_ERRORS, RedisClient, open_pubsub
from control_plane.redis_values import as_text

log = logging.getLogger(__name__)

CHANNEL = "tq:meta"
ACK_PREFIX = "tq:meta-ack:"
MAX_ENTRIES = 10_000
_RETRY_S = 1.0


def return_invalidating(key_expr: str, nonce_expr: str) -> str:
    """The Lua statement that ends a script which changed the key `key_expr`: it publishes
    the invalidation (tagged with the caller's nonce, `nonce_expr`) and returns
    {1, how many gateways received it}. Lua expressions both."""
    message = f"{nonce_expr} .. ' ' .. {key_expr}"
    return f"return {{1, redis.call('PUBLISH', '{CHANNEL}', {message})}}"


def receivers_if_changed(result: object) -> int | None:
    """What a script ending in `return_invalidating` answered: None if it changed
    nothing (it returned 0), else how many gateways must acknowledge."""
    if isinstance(result, list):
        return int(result[1])
    return None


async def wait_applied(redis: RedisClient, nonce: str, receivers: int) -> None:
    """Returns once the gateways that got the invalidation tagged `nonce` (`receivers`,
    as its script's PUBLISH counted them) applied it, or after ACK_WAIT_S without one of
    them (logged: that gateway's subscription is broken)."""
    reached = await acked_pubsub.receivers(redis, CHANNEL, receivers)
    await wait_acknowledged(redis, ACK_PREFIX + nonce, reached, f"metadata invalidation {nonce}")


class MetadataCache:
    """Values by Redis key name. Not thread-safe: use from the event loop that owns it.

    Until `start` has subscribed (and whenever the subscription is down) it holds nothing,
    so an unstarted cache, e.g. in a command-line tool, always reads through.
    """

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self._entries: OrderedDict[str, object] = OrderedDict()
        self._max_entries = max_entries
        self._generation = 0
        self._live = False
        self._task: asyncio.Task[None] | None = None

    @property
    def generation(self) -> int:
        """Read before a Redis lookup; hand it back to `put` with the value read."""
        return self._generation

    def get(self, key: str) -> object | None:
        return self._entries.get(key)

    def put(self, key: str, value: object, generation: int) -> None:
        """Keeps `value` unless an invalidation arrived since `generation` was read, or
        the subscription is not live."""
        if not self._live or generation != self._generation:
            return
        if len(self._entries) >= self._max_entries and key not in self._entries:
            self._entries.popitem(last=False)  # the oldest
        self._entries[key] = value

    def invalidate(self, key: str) -> None:
        self._generation += 1
        self._entries.pop(key, None)

    def _clear(self) -> None:
        self._generation += 1
        self._entries.clear()

    async def start(self, redis: RedisClient) -> None:
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

    async def _apply(self, redis: RedisClient, message: str) -> None:
        nonce, _, key = message.partition(" ")
        self.invalidate(key)
        await acknowledge(redis, ACK_PREFIX + nonce)

    async def _subscribe(self, redis: RedisClient, attempted: asyncio.Event) -> None:
        while True:
            try:
                async with await open_pubsub(redis) as pubsub:
                    await pubsub.subscribe(CHANNEL)
                    # Whatever changed while no subscription was listening is unknown:
                    # start empty.
                    self._clear()
                    self._live = True
                    attempted.set()
                    async for message in pubsub.listen():
                        if message.get("type") == "message":
                            await self._apply(redis, as_text(message["data"]))
            except (*REDIS_ERRORS, OSError):
                log.warning("metadata invalidations lost; reading through for %.0f s", _RETRY_S)
            finally:
                self._live = False
                self._clear()
            attempted.set()
            await asyncio.sleep(_RETRY_S)
