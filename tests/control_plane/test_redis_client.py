"""Opening the control plane's Redis from its URL: one server, or a Redis Cluster."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio import Redis, RedisCluster

from control_plane import script_channel, timed_scripts
from control_plane.errors import ControlPlaneUnavailable, redis_boundary
from control_plane.redis_client import (
    RedisUrlError,
    check_url,
    is_cluster_url,
    open_every_connection,
    open_redis,
)
from tidemq.redis_server import RedisServer


async def test_the_url_picks_the_client_and_both_serve(redis_url: str) -> None:
    client = open_redis(redis_url)
    try:
        assert isinstance(client, RedisCluster if is_cluster_url(redis_url) else Redis)
        await client.set("tq:probe", "1")
        assert await client.get("tq:probe") == b"1"
    finally:
        await client.aclose()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("127.0.0.1:6379", "begins with one of"),
        ("http://127.0.0.1:6379", "begins with one of"),
        ("redis+cluster://", "names one of its nodes"),
        ("rediss+cluster://node:7000/2", "no databases but 0"),
    ],
)
def test_a_url_that_names_no_redis_is_refused_with_the_reason(url: str, message: str) -> None:
    with pytest.raises(RedisUrlError, match=message):
        check_url(url)


async def test_an_unreachable_cluster_is_unavailable_not_a_crash() -> None:
    client = open_redis("redis+cluster://127.0.0.1:1")
    try:
        with pytest.raises(ControlPlaneUnavailable, match="cannot be connected"), redis_boundary():
            await client.get("tq:probe")
    finally:
        await client.aclose()


async def test_commands_past_the_limit_wait_their_turn(redis_url: str) -> None:
    client = open_redis(redis_url, max_connections=2, pool_wait_s=5)
    try:
        counts = await asyncio.gather(*(client.incr("tq:count") for _ in range(50)))
    finally:
        await client.aclose()
    assert sorted(counts) == list(range(1, 51))


async def test_a_command_that_gets_no_turn_in_time_is_unavailable(redis_url: str) -> None:
    client = open_redis(redis_url, max_connections=1, pool_wait_s=0.2)
    try:
        holding = asyncio.create_task(client.blpop(["tq:nothing"], timeout=1))
        await asyncio.sleep(0.1)
        with pytest.raises(ControlPlaneUnavailable), redis_boundary():
            await client.get("tq:probe")
        assert await holding is None
    finally:
        await client.aclose()


async def test_every_connection_of_the_pool_is_open_before_any_burst(
    redis_server: RedisServer,
) -> None:
    redis_url = redis_server.url
    watcher = open_redis(redis_url, max_connections=1)
    client = open_redis(redis_url, max_connections=6)
    try:
        before = len(await watcher.client_list())
        await open_every_connection(client)
        opened = 6 + script_channel.CONNECTIONS  # the pool's and the scripts' own
        assert len(await watcher.client_list()) == before + opened
        # They are there to use: commands and scripts take them without opening more.
        incr = timed_scripts.register(client, "incr", "return redis.call('INCR', KEYS[1])")
        await asyncio.gather(*(client.incr("tq:count") for _ in range(30)))
        await asyncio.gather(*(incr(keys=["tq:count"]) for _ in range(30)))
        assert await client.get("tq:count") == b"60"
        assert len(await watcher.client_list()) == before + opened
    finally:
        await client.aclose()
        await watcher.aclose()
