"""The peer of `tidemq bench --peer redis`: Redis Streams on the bundled server, with the
same durability as TideMQ (`appendonly yes`, `appendfsync always`), under the same shapes.

- batched publish: `--batch-size` XADDs written in one pipelined write per step (the peer
  of publish_batch_rest);
- consume + ack: XREADGROUP COUNT `--batch-size` (BLOCK 1 s, as TideMQ's long poll), then
  one XACK of every id it returned (the peer of consume_rest and consume_ws);
- single publish: one XADD per step, at the fixed rate (the peer of
  publish_single_rest_fixed_rate).

The client is as lean as the TideMQ one's: one connection per worker, every command's
RESP bytes packed once before the run (as the REST bodies are encoded once), one write per
step, and the replies parsed by hiredis (C) straight from the socket, with no per-command
Python object of a client library in between. With `appendfsync always` the server
syncs its AOF before answering the writes of each event-loop pass, so a pipelined batch
shares one fsync, as a TideMQ batch shares its group commit.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import hiredis

from tidemq.bench.load import AsyncStep
from tidemq.bench.servers import BenchError
from tidemq.bench.workloads import WAIT_S, message_body
from tidemq.redis_server import RedisServer, RedisServerConfig, RedisServerError

GROUP = b"bench"
FIELD = b"body"
_FILL_BATCH = 1000
_READ_BYTES = 256 * 1024


def start_redis_peer(work_dir: Path) -> RedisServer:
    """The bundled server on a free port, AOF always, data in `work_dir`/redis-peer."""
    server = RedisServer(RedisServerConfig(data_dir=work_dir / "redis-peer", appendfsync="always"))
    try:
        server.start()
    except RedisServerError as exc:
        raise BenchError(f"cannot start the Redis peer: {exc}") from exc
    return server


def pack(*parts: bytes) -> bytes:
    """One command in RESP: an array of bulk strings."""
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        out.append(b"$%d\r\n%s\r\n" % (len(part), part))
    return b"".join(out)


class RespConnection:
    """One connection: a write of packed commands, then exactly as many replies. A call
    cancelled halfway (a run's end cancels the steps in flight) leaves its replies owed:
    the next call reads and drops them before its own."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, name: bytes):
        self.name = name  # its consumer name in the stream's group
        self._reader = reader
        self._writer = writer
        self._parser = hiredis.Reader()
        self._owed = 0  # replies to commands written whose callers are gone

    @classmethod
    async def open(cls, port: int, name: bytes) -> RespConnection:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer, name)

    async def call(self, packed: bytes, replies: int) -> list[Any]:
        """The replies to `replies` commands packed into `packed`; a Redis error raises."""
        stale = self._owed
        self._owed += replies
        self._writer.write(packed)
        answers: list[Any] = []
        while len(answers) < replies:
            reply = self._parser.gets()
            if reply is False:
                data = await self._reader.read(_READ_BYTES)
                if not data:
                    raise BenchError("the Redis peer closed the connection")
                self._parser.feed(data)
                continue
            self._owed -= 1
            if stale:
                stale -= 1
                continue
            if isinstance(reply, hiredis.ReplyError):
                raise BenchError(f"the Redis peer answered: {reply}")
            answers.append(reply)
        return answers

    async def close(self) -> None:
        self._writer.close()
        await self._writer.wait_closed()


class RedisStreams:
    """`count` connections to the peer, handed out one per step as WsConnections are."""

    def __init__(self, port: int) -> None:
        self.port = port
        self._free: asyncio.Queue[RespConnection] = asyncio.Queue()
        self._all: list[RespConnection] = []

    async def open(self, count: int) -> None:
        for index in range(count):
            connection = await RespConnection.open(self.port, b"c%d" % index)
            self._all.append(connection)
            self._free.put_nowait(connection)

    async def close(self) -> None:
        for connection in self._all:
            await connection.close()

    async def _call(self, packed: bytes, replies: int) -> list[Any]:
        connection = await self._free.get()
        try:
            return await connection.call(packed, replies)
        finally:
            self._free.put_nowait(connection)

    def publish(self, stream: str, size: int) -> AsyncStep:
        """`size` XADDs in one write (size 1: the single publish)."""
        packed = pack(b"XADD", stream.encode(), b"*", FIELD, message_body().encode()) * size

        async def step() -> int:
            await self._call(packed, size)
            return size

        return step

    def consume(self, stream: str, size: int) -> AsyncStep:
        """XREADGROUP of up to `size` new entries, then one XACK of them all."""
        key = stream.encode()

        async def step() -> int:
            connection = await self._free.get()
            try:
                read = pack(
                    b"XREADGROUP", b"GROUP", GROUP, connection.name, b"COUNT", b"%d" % size,
                    b"BLOCK", b"%d" % (WAIT_S * 1000), b"STREAMS", key, b">",
                )  # fmt: skip
                (answer,) = await connection.call(read, 1)
                if not answer:  # nil: nothing arrived within the block
                    return 0
                ids = [entry[0] for entry in answer[0][1]]
                if not ids:
                    return 0
                (acked,) = await connection.call(pack(b"XACK", key, GROUP, *ids), 1)
            finally:
                self._free.put_nowait(connection)
            if acked != len(ids):
                raise BenchError(f"XACK acknowledged {acked} of {len(ids)} entries")
            return len(ids)

        return step

    async def fill(self, stream: str, count: int) -> None:
        """A fresh stream of `count` entries and its consumer group, reading from the start
        (not measured). Every call runs to its end: a connection is never left with replies
        unread."""
        key = stream.encode()
        await self._call(pack(b"DEL", key), 1)
        await self._call(pack(b"XGROUP", b"CREATE", key, GROUP, b"0", b"MKSTREAM"), 1)
        remaining = count

        async def worker(connection: RespConnection) -> None:
            nonlocal remaining
            while remaining > 0:
                size = min(_FILL_BATCH, remaining)
                remaining -= size
                packed = pack(b"XADD", key, b"*", FIELD, message_body().encode()) * size
                await connection.call(packed, size)

        await asyncio.gather(*(worker(connection) for connection in self._all))
