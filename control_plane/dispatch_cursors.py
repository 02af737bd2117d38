"""The cursors of subscriptions delivered in log order (to queues), and who moves them.

A subscription to a queue is delivered in the order of its topic's log, one batch at a
time: read from the cursor, deliver the batch, move the cursor past it. Only one gateway
may do that for a subscription at a time (two would deliver every message twice), so
each holds the subscription's dispatcher key, a lease with a TTL that it renews while it
works. Moving the cursor checks the lease and the position in one script: a gateway that
lost its lease (paused past the TTL) and the one that took over cannot both move it, and
what the first delivered meanwhile is at worst delivered again (at least once).
"""

from __future__ import annotations

from control_plane import timed_scripts
from control_plane.errors import redis_boundary
from control_plane.redis_client import RedisClient
from control_plane.redis_keys import SubscriptionKeys

HOLD = """
-- KEYS[1] dispatcher; ARGV[1] owner, ARGV[2] TTL ms
-- returns 1 if the caller holds the lease now (taken or renewed), 0 if another does
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""

ADVANCE = """
-- KEYS[1] dispatcher, KEYS[2] cursors
-- ARGV[1] owner, ARGV[2] partition, ARGV[3] the cursor the caller read, ARGV[4] new cursor
-- returns 1 moved, 0 the caller no longer holds the lease or the cursor moved meanwhile
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if (redis.call('HGET', KEYS[2], ARGV[2]) or '0') ~= ARGV[3] then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[4])
return 1
"""

RELEASE = """
-- KEYS[1] dispatcher; ARGV[1] owner
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""


class DispatchCursors:
    def __init__(self, redis: RedisClient) -> None:
        self._redis = redis
        self._hold = timed_scripts.register(redis, "hold", HOLD)
        self._advance = timed_scripts.register(redis, "advance", ADVANCE)
        self._release = timed_scripts.register(redis, "release", RELEASE)

    async def hold(self, subscription_id: str, owner: str, ttl_ms: int) -> bool:
        """Takes or renews the lease on delivering the subscription; False if another
        gateway holds it."""
        with redis_boundary():
            held = await self._hold(
                keys=[SubscriptionKeys(subscription_id).dispatcher], args=[owner, ttl_ms]
            )
        return int(held) == 1

    async def position(self, subscription_id: str, partition: int) -> int:
        with redis_boundary():
            value = await self._redis.hget(
                SubscriptionKeys(subscription_id).cursors, str(partition)
            )
        return int(value) if value is not None else 0

    async def advance(
        self, subscription_id: str, owner: str, partition: int, read: int, new: int
    ) -> bool:
        keys = SubscriptionKeys(subscription_id)
        with redis_boundary():
            moved = await self._advance(
                keys=[keys.dispatcher, keys.cursors], args=[owner, partition, read, new]
            )
        return int(moved) == 1

    async def release(self, subscription_id: str, owner: str) -> None:
        with redis_boundary():
            await self._release(keys=[SubscriptionKeys(subscription_id).dispatcher], args=[owner])
