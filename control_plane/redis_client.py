"""Opening the control plane's Redis: one server, or a Redis Cluster, as its URL says.

    redis://host:port/db            one Redis (or Valkey) server
    rediss://host:port/db           the same over TLS
    unix:///path/to/socket          the same over a Unix socket
    redis+cluster://host:port       a Redis Cluster, found from this node (any one of
    rediss+cluster://host:port      its nodes; the client reads the slot map from it)

The same code runs on both: every Lua script and every transaction touches keys of a
single hash slot (control_plane/redis_keys.py says how), and the pub/sub that wake-ups
and cache invalidations travel on is counted across the cluster's nodes
(control_plane/acked_pubsub.py). A cluster has no databases: its URL names none.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias, cast
from urllib.parse import urlsplit

from redis.asyncio import BlockingConnectionPool, Redis, RedisCluster
from redis.asyncio.client import PubSub
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import MaxConnectionsError, RedisClusterException, RedisError
from redis.typing import EncodableT

from control_plane.script_channel import ScriptChannel, channel_for_pool

RedisClient: TypeAlias = Redis | RedisCluster
# What a client of either kind raises when Redis cannot serve a command: a cluster client
# also raises RedisClusterException, which is no RedisError, when no node it knows can be
# reached or a slot has no node (SlotNotCoveredError).
REDIS_ERRORS = (RedisError, RedisClusterException)

# A cluster URL's scheme -> the scheme redis-py reads the same URL under.
_CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
SCHEMES = ("redis", "rediss", "unix", *_CLUSTER_SCHEMES)


class RedisUrlError(ValueError):
    """The URL names no Redis TideMQ can connect to; the message says why."""


def is_cluster_url(url: str) -> bool:
    return urlsplit(url).scheme in _CLUSTER_SCHEMES


def check_url(url: str) -> str:
    """The URL if it is one `open_redis` takes; else RedisUrlError saying what is wrong."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise RedisUrlError(
            f"a Redis URL begins with one of {', '.join(s + '://' for s in SCHEMES)}: {url!r}"
        )
    if parts.scheme in _CLUSTER_SCHEMES:
        if not parts.hostname:
            raise RedisUrlError(f"a Redis Cluster URL names one of its nodes: {url!r}")
        if parts.path.strip("/") not in ("", "0"):
            raise RedisUrlError(f"a Redis Cluster has no databases but 0: {url!r}")
    return url


class QueuedRedisCluster(RedisCluster):
    """A cluster client whose commands wait their turn when `max_commands` are running.

    redis-py's cluster client keeps a pool per node that fails at once when it is empty
    (MaxConnectionsError) where a BlockingConnectionPool would wait, so a burst of long
    polls on a cluster was answered 503 where one Redis absorbed it. Every command (and
    so every script) goes through `execute_command`; taking a turn there bounds the
    connections each node's pool needs by the number of turns.
    """

    def __init__(self, *args: Any, max_commands: int, turn_wait_s: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._turns = asyncio.Semaphore(max_commands)
        self._turn_wait_s = turn_wait_s

    async def execute_command(self, *args: EncodableT, **kwargs: Any) -> Any:
        turns = self._turns
        try:
            async with asyncio.timeout(self._turn_wait_s):
                await turns.acquire()
        except TimeoutError:
            raise MaxConnectionsError(
                f"no connection to the Redis Cluster came free in {self._turn_wait_s:.0f} s"
            ) from None
        try:
            return await super().execute_command(*args, **kwargs)
        finally:
            turns.release()


class ScriptingRedis(Redis):
    """A client of one server whose Lua scripts go on a connection of their own,
    pipelined (control_plane/script_channel.py); every other command takes the pool's.
    Closing the client closes that connection too."""

    script_channel: ScriptChannel | None = None

    async def aclose(self, close_connection_pool: bool | None = None) -> None:
        if self.script_channel is not None:
            await self.script_channel.aclose()
        await super().aclose(close_connection_pool)


def open_redis(
    url: str,
    *,
    max_connections: int = 64,
    pool_wait_s: float = 10.0,
    socket_connect_timeout_s: float = 5.0,
) -> RedisClient:
    """A client for the URL's Redis, connecting lazily (nothing is sent until a command).

    No socket timeout (redis-py 8 defaults it to 5 s): with one, every command is sent
    under asyncio.wait_for, which on Python 3.11 loses a cancellation that arrives just
    after the write, and the cancelled task carries on (a long poll being stopped keeps
    polling). Connecting stays bounded; TCP keepalive finds a dead Redis.

    At most `max_connections` commands at once (to each node of a cluster); past the
    limit a command waits up to `pool_wait_s` for one to finish instead of failing at
    once, so a burst of requests is absorbed rather than answered 503. One server: a
    blocking connection pool, and the scripts on a ScriptChannel beside it. A cluster:
    QueuedRedisCluster.
    """
    check_url(url)
    parts = urlsplit(url)
    if parts.scheme in _CLUSTER_SCHEMES:
        plain = parts._replace(scheme=_CLUSTER_SCHEMES[parts.scheme], path="").geturl()
        return QueuedRedisCluster.from_url(
            plain,
            max_commands=max_connections,
            turn_wait_s=pool_wait_s,
            # Room beyond the queue's turns for pipelines, which take their connections
            # without a turn.
            max_connections=2 * max_connections,
            socket_timeout=None,
            socket_connect_timeout=socket_connect_timeout_s,
        )
    pool = BlockingConnectionPool.from_url(
        url,
        max_connections=max_connections,
        timeout=pool_wait_s,
        socket_timeout=None,
        socket_connect_timeout=socket_connect_timeout_s,
    )
    client = ScriptingRedis.from_pool(pool)
    assert isinstance(client, ScriptingRedis)
    client.script_channel = channel_for_pool(pool)
    return client


async def open_every_connection(redis: RedisClient) -> None:
    """Opens every connection a single server's pool may hold, and its script
    channel's, now, so that no burst of requests waits for new ones.

    A pool opens a connection when a command finds none free (a channel, at its first
    call): a connect and redis-py's handshake (CLIENT SETINFO), round trips that the
    first burst's requests, and every request behind them on the event loop, would wait
    for. Opened during a burst of 5 000 long polls they cost the well-behaved client's
    p99 75 ms against 22 ms opened at start (docs/performance.md, "Stalls at first use,
    rounds of 16, Redis connections at start"). A cluster's pools (one per node, opened
    as the slot map is used) are left as they are.
    """
    if isinstance(redis, RedisCluster):
        return
    pool = redis.connection_pool
    # Untyped in redis-py (a decorator for deprecated arguments wraps it).
    take = cast("Callable[[], Awaitable[AbstractConnection]]", pool.get_connection)
    connections = await asyncio.gather(*(take() for _ in range(pool.max_connections)))
    for connection in connections:
        await pool.release(connection)
    if isinstance(redis, ScriptingRedis) and redis.script_channel is not None:
        await redis.script_channel.open_all()


async def open_pubsub(redis: RedisClient) -> PubSub:
    """`redis.pubsub()`; on a cluster, once the client has read the slot map (its pub/sub
    picks the node to subscribe on by the channel's slot, and fails with a KeyError on a
    client that has sent no command yet)."""
    if isinstance(redis, RedisCluster):
        await redis.initialize()
    return redis.pubsub()
