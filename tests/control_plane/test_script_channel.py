"""Scripts pipelined on a channel of their own: the answers redis-py would give, in
order, after a lost connection, a forgotten script, a cancelled call."""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis
from redis.exceptions import ConnectionError, ResponseError

from control_plane import timed_scripts
from control_plane.redis_client import ScriptingRedis, open_redis
from control_plane.script_channel import RedisAddress, ScriptChannel
from tests.redis_cluster import flush_all
from tidemq.redis_server import RedisServer, RedisServerConfig, find_redis_binary

ECHO = "return {KEYS[1], ARGV[1], #ARGV}"
INCR = "return redis.call('INCR', KEYS[1])"


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    flush_all(redis_server.url)
    return redis_server.url


@pytest.fixture
async def client(redis_url: str) -> AsyncIterator[ScriptingRedis]:
    opened = open_redis(redis_url)
    assert isinstance(opened, ScriptingRedis)
    yield opened
    await opened.aclose()


def channel_of(client: ScriptingRedis) -> ScriptChannel:
    assert client.script_channel is not None
    return client.script_channel


async def test_concurrent_calls_each_get_their_own_answer(client: ScriptingRedis) -> None:
    echo = timed_scripts.register(client, "echo", ECHO)
    answers = await asyncio.gather(
        *(echo(keys=[f"k{i}"], args=[i, "x", 2.5, b"\x00\xff"]) for i in range(500))
    )
    assert answers == [[f"k{i}".encode(), str(i).encode(), 4] for i in range(500)]


async def test_a_script_writes_through_the_channel_as_through_redis_py(
    client: ScriptingRedis,
) -> None:
    incr = timed_scripts.register(client, "incr", INCR)
    by_redis_py = client.register_script(INCR)
    counts = await asyncio.gather(*(incr(keys=["tq:count"]) for _ in range(100)))
    assert sorted(counts) == list(range(1, 101))
    assert await by_redis_py(keys=["tq:count"]) == 101


async def test_an_error_reply_raises_what_redis_py_raises(client: ScriptingRedis) -> None:
    source = "return redis.call('INCR', KEYS[1])"
    await client.set("tq:text", "not a number")
    on_channel = timed_scripts.register(client, "incr", source)
    with pytest.raises(ResponseError) as through_redis_py:
        await client.register_script(source)(keys=["tq:text"])
    with pytest.raises(ResponseError) as through_channel:
        await on_channel(keys=["tq:text"])
    assert type(through_channel.value) is type(through_redis_py.value)
    assert str(through_channel.value) == str(through_redis_py.value)
    # The connection is still in step: the next call gets its own answer.
    assert await timed_scripts.register(client, "echo", ECHO)(keys=["k"], args=["v"]) == [
        b"k",
        b"v",
        1,
    ]


async def test_a_script_redis_forgot_is_loaded_again(client: ScriptingRedis) -> None:
    echo = timed_scripts.register(client, "echo", ECHO)
    assert await echo(keys=["k"], args=["before"]) == [b"k", b"before", 1]
    await client.script_flush()
    assert await echo(keys=["k"], args=["after"]) == [b"k", b"after", 1]


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A Redis of this test's own, to be stopped and killed."""
    server = RedisServer(RedisServerConfig(tmp_path / "redis"))
    server.start()
    yield server
    server.stop()


async def test_calls_out_when_the_connection_is_lost_fail_and_the_next_connects_again(
    own_redis: RedisServer,
) -> None:
    client = open_redis(own_redis.url)
    try:
        incr = timed_scripts.register(client, "incr", INCR)
        assert await incr(keys=["tq:n"]) == 1  # the channel's connection is open
        assert own_redis.pid is not None
        os.kill(own_redis.pid, signal.SIGSTOP)  # the calls below are sent, not answered
        calls = [asyncio.create_task(incr(keys=["tq:n"])) for _ in range(20)]
        await asyncio.sleep(0.1)
        assert not any(call.done() for call in calls)
        own_redis.kill()
        results = await asyncio.gather(*calls, return_exceptions=True)
        assert all(isinstance(r, ConnectionError) for r in results), results
        own_redis.restart()  # from its AOF, with no scripts loaded
        assert await incr(keys=["tq:n"]) == 2
    finally:
        await client.aclose()


async def test_a_cancelled_call_leaves_the_answers_in_order(redis_server: RedisServer) -> None:
    # One connection, so that the calls after the cancelled one queue behind it.
    channel = ScriptChannel(RedisAddress("127.0.0.1", redis_server.port), connections=1)
    source = b"local n = 0 for i = 1, 3000000 do n = n + 1 end return ARGV[1]"
    sha = hashlib.sha1(source).hexdigest()
    try:
        assert await channel.evalsha(sha, source, [], ["warm"]) == b"warm"
        slow = asyncio.create_task(channel.evalsha(sha, source, [], ["cancelled"]))
        await asyncio.sleep(0.01)
        slow.cancel()
        answers = await asyncio.gather(
            *(channel.evalsha(sha, source, [], [str(i)]) for i in range(10))
        )
        assert answers == [str(i).encode() for i in range(10)]
        assert slow.cancelled()
    finally:
        await channel.aclose()


async def test_a_closed_channel_refuses_calls(redis_url: str) -> None:
    client = open_redis(redis_url)
    assert isinstance(client, ScriptingRedis)
    echo = timed_scripts.register(client, "echo", ECHO)
    assert await echo(keys=["k"], args=["v"]) == [b"k", b"v", 1]
    await client.aclose()
    with pytest.raises(ConnectionError, match="closed"):
        await echo(keys=["k"], args=["v"])


async def test_a_user_password_and_database_of_the_url_are_used(
    redis_server: RedisServer, redis_url: str
) -> None:
    admin = redis.Redis.from_url(redis_url)
    admin.acl_setuser(
        "tq-channel", enabled=True, passwords=["+s3cret"], keys="*", commands=["+@all"]
    )
    try:
        host_port = redis_url.removeprefix("redis://").split("/")[0]
        client = open_redis(f"redis://tq-channel:s3cret@{host_port}/3")
        try:
            incr = timed_scripts.register(client, "incr", INCR)
            assert await incr(keys=["tq:in-db-3"]) == 1
        finally:
            await client.aclose()
        assert redis.Redis.from_url(f"{redis_url.rsplit('/', 1)[0]}/3").get("tq:in-db-3") == b"1"
        assert admin.get("tq:in-db-3") is None
        client = open_redis(f"redis://tq-channel:wrong@{host_port}/3")
        try:
            with pytest.raises(redis.exceptions.AuthenticationError):
                await timed_scripts.register(client, "incr", INCR)(keys=["tq:x"])
        finally:
            await client.aclose()
    finally:
        admin.acl_deluser("tq-channel")
        admin.close()


@pytest.fixture
def unix_socket_redis(tmp_path: Path) -> Iterator[Path]:
    socket_path = tmp_path / "redis.sock"
    server = subprocess.Popen(
        [str(find_redis_binary()), "--port", "0", "--unixsocket", str(socket_path),
         "--save", "", "--appendonly", "no", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        probe = redis.Redis(unix_socket_path=str(socket_path))
        for _ in range(100):
            try:
                probe.ping()
                break
            except redis.exceptions.ConnectionError:
                subprocess.run(["sleep", "0.05"], check=True)
        probe.close()
        yield socket_path
    finally:
        server.terminate()
        server.wait(10)


async def test_a_unix_socket_url_gets_a_channel_too(unix_socket_redis: Path) -> None:
    client = open_redis(f"unix://{unix_socket_redis}")
    try:
        assert isinstance(client, ScriptingRedis)
        assert client.script_channel is not None
        incr = timed_scripts.register(client, "incr", INCR)
        assert await asyncio.gather(*(incr(keys=["tq:n"]) for _ in range(3))) == [1, 2, 3]
    finally:
        await client.aclose()
