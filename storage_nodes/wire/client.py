"""A Node reached over the network: the client side of the node protocol (frames.py).

One persistent TCP connection per client, opened on first use and again after it
breaks. Requests are pipelined: each call sends its frame at once and waits for the
response with its request id, so any number of calls share the connection without
waiting for each other.

Errors: the server's NodeErrors come back as the same classes (and ValueError for a bad
request). A connection that cannot be made raises NodeUnreachable(sent=False); one
that breaks, or a response that does not come within `timeout_ms`, raises
NodeUnreachable(sent=True) for every request waiting on it: those may have been done.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import uuid
from collections.abc import Sequence
from typing import Any

from storage_nodes.archive.tiering import TieringStatus
from storage_nodes.node import (
    Absence,
    NodeUnreachable,
    Record,
    RecordIn,
    Replication,
    StreamDescriptor,
)
from storage_nodes.wire import frames
from storage_nodes.wire.frames import FrameError, Op, Status

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_MS = 30_000
DEFAULT_CONNECT_TIMEOUT_MS = 2_000
_WRITE_HIGH_WATER_BYTES = 4 * 1024 * 1024


class _Connection:
    """One open connection and the requests waiting on it."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.waiting: dict[int, tuple[Op, asyncio.Future[Any]]] = {}
        self.broken: str | None = None
        self.task = asyncio.create_task(self._read(), name="node-client-reader")

    async def _read(self) -> None:
        try:
            while True:
                head = await self.reader.readexactly(frames.HEADER.size)
                header = frames.decode_header(head)
                payload = await self.reader.readexactly(header.length)
                waiting = self.waiting.pop(header.request_id, None)
                if waiting is None:
                    continue  # its caller timed out and left
                op, future = waiting
                if future.done():
                    continue
                try:
                    future.set_result(_result(op, header.kind, payload))
                except Exception as exc:  # the server's error, raised to its caller
                    future.set_exception(exc)
        except (asyncio.IncompleteReadError, ConnectionError, OSError) as exc:
            self.fail(f"the connection broke ({type(exc).__name__})")
        except FrameError as exc:
            self.fail(f"the node sent a bad frame ({exc})")
        except asyncio.CancelledError:
            self.fail("the client was closed")
            raise

    def fail(self, reason: str) -> None:
        self.broken = reason
        waiting, self.waiting = self.waiting, {}
        for _, future in waiting.values():
            if not future.done():
                future.set_exception(NodeUnreachable(reason, sent=True))
        self.writer.close()


def _result(op: Op, status: int, payload: bytes) -> Any:
    if status == Status.OK:
        return frames.decode_response(op, payload)
    raise frames.error_for(status, frames.decode_error_message(payload))


class NodeClient:
    """Implements storage_nodes.node.Node against the node at `address` ("host:port").

    The partition methods take `epoch`, the lease tenure the caller believes current (0:
    whichever the node holds); `append` takes the producer id and sequence it is
    deduplicated by, this client's own id and next sequence unless given.

    Not thread-safe: use from one event loop.
    """

    def __init__(
        self,
        address: str,
        *,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        connect_timeout_ms: int = DEFAULT_CONNECT_TIMEOUT_MS,
        producer_id: str | None = None,
    ) -> None:
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"a node address is host:port, not {address!r}")
        self.address = address
        self._host, self._port = host.strip("[]"), int(port)
        self._timeout_s = timeout_ms / 1000
        self._connect_timeout_s = connect_timeout_ms / 1000
        self.producer_id = producer_id or uuid.uuid4().hex
        self._sequences = itertools.count(1)
        self._request_ids = itertools.count(1)
        self._connection: _Connection | None = None
        self._connecting = asyncio.Lock()
        self._problem: str | None = None
        self._closed = False

    def next_sequence(self) -> int:
        return next(self._sequences)

    # -- Node ----------------------------------------------------------------------------

    async def create_stream(self, descriptor: StreamDescriptor) -> None:
        await self._call(Op.CREATE_STREAM, frames.wire_descriptor(descriptor))

    async def append(
        self,
        stream_id: str,
        partition: int,
        records: Sequence[RecordIn],
        *,
        epoch: int = 0,
        producer_id: str | None = None,
        sequence: int | None = None,
        replication: Replication = "none",
    ) -> int:
        request = frames.Append(
            frames.Partition(stream_id, partition, epoch),
            producer_id or self.producer_id,
            self.next_sequence() if sequence is None else sequence,
            frames.wire_records(records),
            replication,
        )
        offset: int = await self._call(Op.APPEND, request)
        return offset

    async def replicate(
        self, stream_id: str, partition: int, lease_epoch: int, batches: bytes, *, archived_end: int
    ) -> None:
        """Has the node keep a copy of appends of the tenure `lease_epoch` (its follower
        side, storage_nodes/copies): returns once it is fsynced there."""
        request = frames.Replicate(
            frames.Partition(stream_id, partition, lease_epoch), archived_end, batches
        )
        await self._call(Op.REPLICATE, request)

    async def read_offsets(
        self, stream_id: str, partition: int, offsets: Sequence[int], *, epoch: int = 0
    ) -> dict[int, Record]:
        request = frames.ReadOffsets(frames.Partition(stream_id, partition, epoch), list(offsets))
        found: list[frames.WireRecord] = await self._call(Op.READ_OFFSETS, request)
        return {r.offset: frames.record_out(r) for r in found}

    async def absent(
        self, stream_id: str, partition: int, offsets: Sequence[int], *, epoch: int = 0
    ) -> Absence:
        request = frames.ReadOffsets(frames.Partition(stream_id, partition, epoch), list(offsets))
        found: frames.AbsentOffsets = await self._call(Op.ABSENT, request)
        return Absence(frozenset(found.unavailable), frozenset(found.never_written))

    async def end_offset(self, stream_id: str, partition: int, *, epoch: int = 0) -> int:
        end: int = await self._call(Op.END_OFFSET, frames.Partition(stream_id, partition, epoch))
        return end

    async def offset_for_time(
        self, stream_id: str, partition: int, timestamp_ms: int, *, epoch: int = 0
    ) -> int:
        request = frames.OffsetForTime(frames.Partition(stream_id, partition, epoch), timestamp_ms)
        offset: int = await self._call(Op.OFFSET_FOR_TIME, request)
        return offset

    async def drop_stream(self, stream_id: str) -> None:
        await self._call(Op.DROP_STREAM, frames.StreamRef(stream_id))

    async def tiering_status(
        self, stream_id: str, partition: int, *, epoch: int = 0
    ) -> TieringStatus | None:
        status: TieringStatus | None = await self._call(
            Op.TIERING_STATUS, frames.Partition(stream_id, partition, epoch)
        )
        return status

    def problem(self) -> str | None:
        """Why the last request could not reach the node (None once one does); the
        node's own problem is `fetch_problem`'s."""
        return self._problem

    async def fetch_problem(self) -> str | None:
        problem: str | None = await self._call(Op.PROBLEM, frames.Empty())
        return problem

    async def close(self) -> None:
        self._closed = True
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await connection.task
            with contextlib.suppress(ConnectionError, OSError):
                await connection.writer.wait_closed()

    # -- the connection ------------------------------------------------------------------

    async def _call(self, op: Op, request: object) -> Any:
        payload = frames.encode_payload(request)
        connection = await self._connect()
        request_id = next(self._request_ids) & frames.MAX_REQUEST_ID
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        connection.waiting[request_id] = (op, future)
        writer = connection.writer
        writer.write(frames.encode_frame(op, request_id, payload))
        try:
            if writer.transport.get_write_buffer_size() > _WRITE_HIGH_WATER_BYTES:
                await writer.drain()
            return await asyncio.wait_for(future, self._timeout_s)
        except TimeoutError:
            connection.waiting.pop(request_id, None)
            raise NodeUnreachable(
                f"the node at {self.address} did not answer {op.name} within {self._timeout_s:g} s",
                sent=True,
            ) from None
        except ConnectionError as exc:
            connection.fail(f"the connection broke ({type(exc).__name__})")
            raise NodeUnreachable(
                f"the connection to the node at {self.address} broke", sent=True
            ) from exc

    async def _connect(self) -> _Connection:
        connection = self._connection
        if connection is not None and connection.broken is None:
            return connection
        if self._closed:
            raise NodeUnreachable(f"the client of {self.address} is closed", sent=False)
        async with self._connecting:
            connection = self._connection
            if connection is not None and connection.broken is None:
                return connection
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection(self._host, self._port), self._connect_timeout_s
                )
            except (OSError, TimeoutError) as exc:
                self._problem = f"cannot connect to the node at {self.address}: {exc}"
                raise NodeUnreachable(self._problem, sent=False) from exc
            self._problem = None
            self._connection = _Connection(reader, writer)
            return self._connection
