"""The control plane as one object: a Redis connection and the stores built on it."""

from __future__ import annotations

from redis.asyncio import BlockingConnectionPool, Redis

from control_plane import redis_keys
from control_plane.accounts import AccountIndex
from control_plane.clock import Clock, SystemClock
from control_plane.deliveries import Deliveries
from control_plane.errors import redis_boundary
from control_plane.leases import Leases
from control_plane.membership import Membership
from control_plane.metadata_cache import MetadataCache
from control_plane.move_tasks import MoveTaskStore
from control_plane.queues import QueueStore
from control_plane.receipts import ReceiptSigner, new_signing_key
from control_plane.redis_values import as_bytes
from control_plane.subscriptions import SubscriptionStore
from control_plane.topics import TopicStore
from control_plane.wakeups import WakeUps

# Connections to Redis per process. Redis serves commands one at a time, so more would
# only queue there instead of here; each is held for one round trip.
MAX_CONNECTIONS = 64
POOL_WAIT_S = 10.0


class ControlPlane:
    def __init__(self, redis: Redis, clock: Clock, signer: ReceiptSigner) -> None:
        self.redis = redis
        self.clock = clock
        # Filled only once `connect` has subscribed to its invalidations.
        self.metadata_cache = MetadataCache()
        self.queues = QueueStore(redis, clock, self.metadata_cache)
        self.topics = TopicStore(redis, clock, self.metadata_cache)
        self.subscriptions = SubscriptionStore(redis, clock)
        self.deliveries = Deliveries(redis, clock, signer)
        self.membership = Membership(redis, clock)
        self.leases = Leases(redis, clock)
        self.move_tasks = MoveTaskStore(redis, clock)
        self.wakeups = WakeUps()
        self.accounts = AccountIndex(redis)

    @classmethod
    async def connect(cls, redis_url: str, clock: Clock | None = None) -> ControlPlane:
        """Connects and loads the receipt signing key every gateway of the cluster shares.

        The first gateway to start creates the key (SET NX); the rest read it.
        """
        # No socket_timeout (redis-py 8 defaults it to 5 s): with one, every command is
        # sent under asyncio.wait_for, which on Python 3.11 loses a cancellation that
        # arrives just after the write, and the cancelled task carries on (a long poll
        # being stopped keeps polling). Connecting stays bounded; TCP keepalive finds a
        # dead Redis.
        #
        # A blocking pool: past MAX_CONNECTIONS a command waits (up to POOL_WAIT_S) for a
        # connection to come back instead of failing at once, so a burst of requests is
        # absorbed rather than answered 503. A long poll holds none while it waits: it
        # waits on in-process wake-ups (wakeups.py), and each command returns its
        # connection when it is answered.
        pool = BlockingConnectionPool.from_url(
            redis_url,
            max_connections=MAX_CONNECTIONS,
            timeout=POOL_WAIT_S,
            socket_timeout=None,
            socket_connect_timeout=5,
        )
        redis = Redis.from_pool(pool)
        try:
            with redis_boundary():
                await redis.set(redis_keys.RECEIPT_KEY, new_signing_key(), nx=True)
                signing_key = await redis.get(redis_keys.RECEIPT_KEY)
        except BaseException:
            await redis.aclose()
            raise
        assert signing_key is not None
        plane = cls(redis, clock or SystemClock(), ReceiptSigner(as_bytes(signing_key)))
        await plane.wakeups.start_relay(redis)
        await plane.metadata_cache.start(redis)
        return plane

    async def ping(self) -> None:
        """Returns once Redis answers; ControlPlaneUnavailable if it does not."""
        with redis_boundary():
            await self.redis.ping()

    async def next_writer_epoch(self) -> int:
        """A fencing epoch for a storage node's archive writes, higher than every one
        handed out before: a node started later fences out one started earlier."""
        with redis_boundary():
            return int(await self.redis.incr(redis_keys.WRITER_EPOCH))

    async def forget_stream(self, stream_id: str, partitions: int) -> None:
        """Drops a deleted stream's subscription state and lease epochs.

        Safe because stream ids are never reused: a queue created again gets a new one.
        """
        await self.deliveries.drop(stream_id, partitions)
        with redis_boundary():
            await self.redis.delete(redis_keys.partition_leases(stream_id))

    async def close(self) -> None:
        await self.metadata_cache.stop()
        await self.wakeups.stop_relay()
        await self.redis.aclose()
