"""The control plane as one object: a Redis connection and the stores built on it."""

from __future__ import annotations

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
from control_plane.redis_client import RedisClient, open_every_connection, open_redis
from control_plane.redis_values import as_bytes
from control_plane.subscriptions import SubscriptionStore
from control_plane.topics import TopicStore
from control_plane.wakeups import WakeUps

# Connections to Redis per process (to each node of a cluster). Redis serves commands one
# at a time, so more would only queue there instead of here; each is held for one round
# trip.
MAX_CONNECTIONS = 64
POOL_WAIT_S = 10.0


class ControlPlane:
    def __init__(self, redis: RedisClient, clock: Clock, signer: ReceiptSigner) -> None:
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
    async def connect(
        cls, redis_url: str, clock: Clock | None = None, *, serving: bool = False
    ) -> ControlPlane:
        """Connects and loads the receipt signing key every gateway of the cluster shares.

        The first gateway to start creates the key (SET NX); the rest read it. `serving`:
        for a process about to serve requests, every connection of the pool is opened
        now, not under its first burst (redis_client.open_every_connection); before the
        relays below take theirs, while all of them are free.
        """
        # A long poll holds no connection while it waits: it waits on in-process
        # wake-ups (wakeups.py), and each command returns its connection when answered.
        redis = open_redis(redis_url, max_connections=MAX_CONNECTIONS, pool_wait_s=POOL_WAIT_S)
        try:
            with redis_boundary():
                await redis.set(redis_keys.RECEIPT_KEY, new_signing_key(), nx=True)
                signing_key = await redis.get(redis_keys.RECEIPT_KEY)
                if serving:
                    await open_every_connection(redis)
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
