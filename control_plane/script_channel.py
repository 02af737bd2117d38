"""Lua scripts pipelined on connections of their own, beside redis-py's pool.

Every claim, delete and settle of a message is one script call (EVALSHA), and through
redis-py's asyncio client each call cost ~70 us of the event loop's CPU before Redis
saw it (its blocking pool's condition and timeout, the retry and observability layers,
the command packed argument by argument): with two calls per 100 messages consumed,
about a tenth of a consume's CPU (docs/performance.md, "Scripts on connections of their
own"). A `ScriptChannel` does only what a script call needs:

- **a few connections, pipelined** (`CONNECTIONS`): each call goes on the one with the
  fewest calls out, written at once and answered in order (Redis answers a
  connection's commands in the order it sent them), waiting on a future of its own;
- **replies parsed by hiredis**, errors turned into the exceptions redis-py raises for
  them (`BaseParser.parse_error`), so `redis_boundary` and every caller see the same;
- **NOSCRIPT** (a Redis restarted or flushed since the script was loaded): loaded with
  SCRIPT LOAD and called again, as redis-py's `AsyncScript` does;
- **a lost connection** fails the calls waiting on it with ConnectionError (whether a
  script whose answer was lost ran is unknown, as with any client), and the next call
  connects again.

A caller cancelled while its call is out leaves the connection in order: its answer is
read and dropped. Blocking commands never go here (they would hold up every call behind
them); only scripts, which Redis runs one at a time whatever connection they come on.

Used for a single server reached over TCP or a Unix socket (`open_redis` gives such a
client one, `ScriptingRedis`); TLS and Redis Cluster keep redis-py's path.
"""

from __future__ import annotations

import asyncio
import collections
import socket
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

import hiredis
from redis._parsers.base import BaseParser
from redis.asyncio.connection import Connection, ConnectionPool, UnixDomainSocketConnection
from redis.exceptions import ConnectionError, NoScriptError, ResponseError
from redis.typing import EncodableT, KeyT

__all__ = ["RedisAddress", "ScriptChannel", "channel_for_pool"]

# Connections a channel pipelines on. Not one: on one, consume_rest ran at 59-62k msgs/s
# against 63-72k on 8 (16 no better; docs/performance.md). Redis reads at most 16 KiB of a
# connection's commands a pass of its event loop, and with `appendfsync always` every pass
# ends in an fsync: likely why, not measured.
CONNECTIONS = 8


@dataclass(frozen=True)
class RedisAddress:
    """Where a channel's connections go, and how they log in."""

    host: str = "localhost"
    port: int = 6379
    path: str | None = None  # a Unix socket, instead of host and port
    username: str | None = None
    password: str | None = None
    db: int = 0
    connect_timeout_s: float | None = None


class ScriptChannel:
    """EVALSHA calls to one Redis, pipelined on `connections` connections (module
    docstring): each call goes on the one with the fewest calls out."""

    def __init__(self, address: RedisAddress, connections: int = CONNECTIONS) -> None:
        self._lanes = [_Lane(address) for _ in range(connections)]

    async def evalsha(
        self,
        sha: str,
        source: bytes,
        keys: Sequence[KeyT],
        args: Iterable[EncodableT],
    ) -> Any:
        """The script's answer, called by its SHA1; loaded from `source` and called again
        if Redis does not know it."""
        command = _pack(b"EVALSHA", sha, len(keys), *keys, *args)
        lane = min(self._lanes, key=_Lane.calls_out)
        try:
            return await lane.call(command)
        except NoScriptError:
            await lane.call(_pack(b"SCRIPT", b"LOAD", source))
            return await lane.call(command)

    async def open_all(self) -> None:
        """Opens every connection now (a serving process, before its first burst)."""
        await asyncio.gather(*(lane.open() for lane in self._lanes))

    async def aclose(self) -> None:
        """Closes the connections; calls still out fail with ConnectionError."""
        for lane in self._lanes:
            lane.close()


class _Lane:
    """One connection of a channel, opened at its first call and again after it is lost."""

    def __init__(self, address: RedisAddress) -> None:
        self._address = address
        self._protocol: _RespProtocol | None = None
        self._connecting: asyncio.Lock | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False

    async def open(self) -> None:
        if self._usable() is None:
            await self._connect()

    def calls_out(self) -> int:
        protocol = self._protocol
        return 0 if protocol is None else len(protocol.waiting)

    async def call(self, command: bytes) -> Any:
        protocol = self._usable() or await self._connect()
        return await protocol.call(command)

    def _usable(self) -> _RespProtocol | None:
        """The open connection, if it is this event loop's."""
        protocol = self._protocol
        if protocol is None or not protocol.open or self._loop is not asyncio.get_running_loop():
            return None
        return protocol

    def close(self) -> None:
        self._closed = True
        protocol, self._protocol = self._protocol, None
        if protocol is not None:
            protocol.close()

    async def _connect(self) -> _RespProtocol:
        if self._closed:
            raise ConnectionError("the script channel is closed")
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            # A client used from another event loop than before (tests run one a test):
            # the old connection belongs to the old loop and is left to it.
            self._loop, self._connecting, self._protocol = loop, asyncio.Lock(), None
        assert self._connecting is not None
        async with self._connecting:
            protocol = self._protocol
            if protocol is not None and protocol.open:
                return protocol  # another call connected meanwhile
            try:
                async with asyncio.timeout(self._address.connect_timeout_s):
                    protocol = await self._open(loop)
                    await self._handshake(protocol)
            except (OSError, TimeoutError) as exc:
                raise ConnectionError(f"Error connecting to Redis for scripts: {exc}") from exc
            self._protocol = protocol
            return protocol

    async def _open(self, loop: asyncio.AbstractEventLoop) -> _RespProtocol:
        address = self._address
        if address.path is not None:
            _, protocol = await loop.create_unix_connection(_RespProtocol, address.path)
            return protocol
        transport, protocol = await loop.create_connection(
            _RespProtocol, address.host, address.port
        )
        sock = transport.get_extra_info("socket")
        if sock is not None:
            # Nagle would hold a call back for the previous one's ACK; keepalive finds a
            # Redis gone without a word, as redis-py's connections do.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        return protocol

    async def _handshake(self, protocol: _RespProtocol) -> None:
        address = self._address
        try:
            if address.password is not None:
                auth: tuple[EncodableT, ...] = (b"AUTH", address.password)
                if address.username is not None:
                    auth = (b"AUTH", address.username, address.password)
                await protocol.call(_pack(*auth))
            if address.db:
                await protocol.call(_pack(b"SELECT", address.db))
        except BaseException:
            protocol.close()
            raise


def channel_for_pool(pool: ConnectionPool) -> ScriptChannel | None:
    """A channel to the server `pool` connects to, with its credentials and database;
    None where it connects in a way a channel does not (TLS, or a connection class of
    its own)."""
    kwargs = pool.connection_kwargs
    login = RedisAddress(
        username=kwargs.get("username"),
        password=kwargs.get("password"),
        db=int(kwargs.get("db") or 0),
        connect_timeout_s=kwargs.get("socket_connect_timeout"),
    )
    if pool.connection_class is Connection:
        host, port = kwargs.get("host", "localhost"), int(kwargs.get("port", 6379))
        return ScriptChannel(replace(login, host=host, port=port))
    if pool.connection_class is UnixDomainSocketConnection:
        return ScriptChannel(replace(login, path=kwargs["path"]))
    return None


class _RespProtocol(asyncio.Protocol):
    """One connection: commands written in order, each answered by the next reply."""

    def __init__(self) -> None:
        self._transport: asyncio.Transport | None = None
        self._reader = hiredis.Reader(replyError=ResponseError)
        self.waiting: collections.deque[asyncio.Future[Any]] = collections.deque()
        self.open = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are no subclasses of asyncio's, only alike.
        self._transport = cast("asyncio.Transport", transport)
        self.open = True

    def call(self, command: bytes) -> asyncio.Future[Any]:
        if not self.open or self._transport is None:
            raise ConnectionError("Connection to Redis for scripts lost")
        # Written at once, not gathered for one write a pass of the event loop: under
        # load a pass takes milliseconds, and the call would wait for the next one.
        self._transport.write(command)
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiting.append(answer)
        return answer

    def data_received(self, data: bytes) -> None:
        reader = self._reader
        reader.feed(data)
        while (reply := reader.gets()) is not False:
            if not self.waiting:
                # An answer nobody asked for: the stream is out of step; start over.
                self.close()
                return
            answer = self.waiting.popleft()
            if answer.done():
                continue  # its caller was cancelled: dropped, the order kept
            if isinstance(reply, ResponseError):
                answer.set_exception(_error_of(reply))
            else:
                answer.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.open = False
        waiting, self.waiting = self.waiting, collections.deque()
        reason = f": {exc}" if exc is not None else ""
        for answer in waiting:
            if not answer.done():
                answer.set_exception(ConnectionError(f"Connection to Redis lost{reason}"))

    def close(self) -> None:
        self.open = False
        if self._transport is not None:
            self._transport.close()


def _error_of(reply: ResponseError) -> Exception:
    """The exception redis-py raises for an error reply (NoScriptError for NOSCRIPT...)."""
    parse = cast("Callable[[str], Exception]", BaseParser.parse_error)
    return parse(str(reply))


def _pack(*parts: EncodableT) -> bytes:
    """A command in RESP: an array of bulk strings."""
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        data = _encode(part)
        out.append(b"$%d\r\n%b\r\n" % (len(data), data))
    return b"".join(out)


def _encode(value: EncodableT) -> bytes:
    # As redis-py's Encoder: bytes as they are, text as UTF-8, numbers as their digits.
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bool):
        raise TypeError("a bool is no Redis argument: pass an int or a string")
    if isinstance(value, int):
        return b"%d" % value
    if isinstance(value, float):
        return repr(value).encode()
    if isinstance(value, memoryview):
        return value.tobytes()
    raise TypeError(f"{type(value).__name__} is no Redis argument")
