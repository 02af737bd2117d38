"""The gateway's metadata cache: lookups served from it while its invalidation
subscription is live, and every change that matters applied by every process before
the change returns."""

from __future__ import annotations

from collections.abc import AsyncIterator

import orjson
import pytest

from control_plane import redis_keys
from control_plane.bearer_tokens import BearerTokens, digest_of, token_record
from control_plane.clock import ManualClock, SystemClock
from control_plane.errors import QueueDoesNotExist
from control_plane.metadata_cache import MetadataCache
from control_plane.plane import ControlPlane
from control_plane.queues import QueueStore
from control_plane.redis_client import RedisClient, open_redis

ACCOUNT = "123456789012"
DAY_MS = 24 * 3600 * 1000


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[RedisClient]:
    client = open_redis(redis_url)
    yield client
    await client.aclose()


async def _behind_its_back(redis: RedisClient, queue: str, attributes: dict[str, str]) -> None:
    """Changes a queue's metadata in Redis without the scripts, so without invalidation."""
    await redis.hset(
        redis_keys.queue_metadata(ACCOUNT, queue), "attributes", orjson.dumps(attributes)
    )


async def test_lookups_are_served_from_the_cache(plane: ControlPlane, redis: RedisClient) -> None:
    await plane.queues.create(ACCOUNT, "orders", {"VisibilityTimeout": "30"})
    assert (await plane.queues.get(ACCOUNT, "orders")).settings.visibility_timeout_ms == 30_000
    await _behind_its_back(redis, "orders", {"VisibilityTimeout": "5"})
    assert (await plane.queues.get(ACCOUNT, "orders")).settings.visibility_timeout_ms == 30_000


async def test_an_unstarted_cache_reads_through(redis: RedisClient, clock: ManualClock) -> None:
    store = QueueStore(redis, clock, MetadataCache())
    await store.create(ACCOUNT, "orders", {"VisibilityTimeout": "30"})
    await store.get(ACCOUNT, "orders")
    await _behind_its_back(redis, "orders", {"VisibilityTimeout": "5"})
    assert (await store.get(ACCOUNT, "orders")).settings.visibility_timeout_ms == 5_000


async def test_a_change_by_another_process_invalidates(
    plane: ControlPlane, redis: RedisClient, clock: ManualClock
) -> None:
    await plane.queues.create(ACCOUNT, "orders", {"VisibilityTimeout": "30"})
    await plane.queues.get(ACCOUNT, "orders")
    other = QueueStore(redis, clock)  # another gateway, or a command-line tool
    await other.set_attributes(ACCOUNT, "orders", {"VisibilityTimeout": "7"})
    # The change returned once every subscribed gateway had applied it.
    assert (await plane.queues.get(ACCOUNT, "orders")).settings.visibility_timeout_ms == 7_000


async def test_a_change_here_applies_at_once(plane: ControlPlane) -> None:
    await plane.queues.create(ACCOUNT, "orders", {"VisibilityTimeout": "30"})
    await plane.queues.get(ACCOUNT, "orders")
    await plane.queues.set_attributes(ACCOUNT, "orders", {"VisibilityTimeout": "7"})
    assert (await plane.queues.get(ACCOUNT, "orders")).settings.visibility_timeout_ms == 7_000
    await plane.queues.delete(ACCOUNT, "orders")
    with pytest.raises(QueueDoesNotExist):
        await plane.queues.get(ACCOUNT, "orders")


async def test_a_deletion_by_another_process_invalidates(
    plane: ControlPlane, redis: RedisClient, clock: ManualClock
) -> None:
    await plane.queues.create(ACCOUNT, "orders", {})
    await plane.queues.get(ACCOUNT, "orders")
    await QueueStore(redis, clock).delete(ACCOUNT, "orders")
    with pytest.raises(QueueDoesNotExist):
        await plane.queues.get(ACCOUNT, "orders")


async def test_a_read_racing_an_invalidation_is_not_kept(plane: ControlPlane) -> None:
    cache = plane.metadata_cache
    generation = cache.generation
    cache.invalidate("some-key")  # arrives while the caller was reading Redis
    cache.put("some-key", "stale", generation)
    assert cache.get("some-key") is None
    cache.put("some-key", "fresh", cache.generation)
    assert cache.get("some-key") == "fresh"


async def test_the_cache_is_bounded(plane: ControlPlane) -> None:
    cache = MetadataCache(max_entries=2)
    await cache.start(plane.redis)
    try:
        for key in ("a", "b", "c"):
            cache.put(key, key.upper(), cache.generation)
        assert [cache.get(k) for k in ("a", "b", "c")] == [None, "B", "C"]
    finally:
        await cache.stop()


async def test_revoking_a_token_invalidates_every_process(
    plane: ControlPlane, redis: RedisClient
) -> None:
    # Redis drops token records by wall-clock time: tokens need the real clock.
    clock = SystemClock()
    tokens = BearerTokens(plane.redis, clock, plane.metadata_cache)
    issued = await tokens.create(ACCOUNT, ttl_ms=DAY_MS)
    assert await tokens.find(issued.token) == issued.record
    assert plane.metadata_cache.get(token_record(digest_of(issued.token))) is not None
    await BearerTokens(redis, clock).revoke(issued.record.token_id)  # e.g. `tidemq keys`
    assert await tokens.find(issued.token) is None
