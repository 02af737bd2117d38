"""The node server: a Node served to gateways over TCP (frames.py has the protocol).

Each connection is read by one task; each request on it runs in a task of its own, so
requests are answered as they complete (pipelining), up to `max_in_flight` per
connection, after which the connection is not read until one completes (TCP then
pushes back on the client).

Before any partition request the server asks its `Ownership` whether this node may
serve it now (fencing: a node whose lease has ended, or is being handed over, refuses
with NotOwner before touching the log); appends are then deduplicated by producer id and
sequence (producer_sequences.py).

Shutdown (`close`), in order: stop accepting connections; wait for the requests in
progress to be answered (an append in flight completes and is acknowledged); close the
connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from storage_nodes import metrics
from storage_nodes.archive.tiering import TieringStatus
from storage_nodes.node import REPLICATION_MODES, Node, NodeError, RecordIn, Replication
from storage_nodes.wire import frames
from storage_nodes.wire.frames import FrameError, Op, Status
from storage_nodes.wire.producer_sequences import ProducerSequences

log = logging.getLogger(__name__)

DEFAULT_MAX_IN_FLIGHT = 1024
# Past this many bytes waiting to be sent on a connection, a response waits for them.
_WRITE_HIGH_WATER_BYTES = 4 * 1024 * 1024
_REQUESTS = {op: metrics.REQUESTS.labels(op.name) for op in Op}


class Ownership(Protocol):
    """Whether this node may serve a partition now: the fencing the server applies."""

    async def admit(self, stream_id: str, partition: int, epoch: int, *, write: bool) -> None:
        """Returns if the node holds the partition's lease as current, at `epoch` unless
        that is 0 (taking the lease first if it is free and the node may); raises
        NotOwner otherwise. `write`: the request is an append."""
        ...

    async def covered(self, stream_id: str, partition: int, end_offset: int) -> None:
        """Returns once an append that ends before `end_offset` may be acknowledged
        (its offsets are reserved for this tenure); NotOwner if it may not be."""
        ...


class Copies(Protocol):
    """The owner's tail copies (storage_nodes/copies/copier.py)."""

    async def copy(
        self,
        stream_id: str,
        partition: int,
        base_offset: int,
        records: list[RecordIn],
        mode: Replication,
    ) -> None: ...


class Replicas(Protocol):
    """A follower's copies of other nodes' tails (storage_nodes/copies/replica_store.py)."""

    async def write(
        self, tenure: tuple[str, int, int], data: bytes, *, archived_end: int
    ) -> None: ...


class Unfenced:
    """Serves every partition: a node that is the only one (tests, a single node)."""

    async def admit(self, stream_id: str, partition: int, epoch: int, *, write: bool) -> None:
        return None

    async def covered(self, stream_id: str, partition: int, end_offset: int) -> None:
        return None


class NodeServer:
    def __init__(
        self,
        node: Node,
        ownership: Ownership | None = None,
        *,
        sequences: ProducerSequences | None = None,
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
        copies: Copies | None = None,
        replicas: Replicas | None = None,
    ) -> None:
        """`copies`: the owner's tail copies, made before an append of a `replica` or
        `object` stream is acknowledged (without: such appends are kept as `none`);
        `replicas`: where this node keeps the copies it gets as a follower (without:
        REPLICATE is refused)."""
        self._node = node
        self._copies = copies
        self._replicas = replicas
        self._ownership = ownership or Unfenced()
        self.sequences = sequences or ProducerSequences()
        self._max_in_flight = max_in_flight
        self._server: asyncio.Server | None = None
        # Each connection's reading task, and its writer (closing it ends the task).
        self._connections: dict[asyncio.Task[None], asyncio.StreamWriter] = {}
        self._requests: set[asyncio.Task[None]] = set()

    async def start(self, host: str, port: int) -> tuple[str, int]:
        """Listens; returns the address bound (port 0 picks a free one)."""
        self._server = await asyncio.start_server(self._connection, host, port)
        bound = self._server.sockets[0].getsockname()
        return str(bound[0]), int(bound[1])

    @property
    def in_flight(self) -> int:
        return len(self._requests)

    async def drain(self) -> None:
        """Waits until no request is in progress."""
        while self._requests:
            await asyncio.wait(set(self._requests))

    async def settle(self) -> None:
        """Waits for the requests in progress now to be answered, not for those arriving
        meanwhile: once the Ownership refuses a partition, this is the wait after which
        nothing admitted before is still writing it."""
        if self._requests:
            await asyncio.wait(set(self._requests))

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        await self.drain()
        connections = dict(self._connections)
        for writer in connections.values():
            writer.close()
        if connections:
            await asyncio.wait(connections)
        if self._server is not None:
            await self._server.wait_closed()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections[task] = writer
        slots = asyncio.Semaphore(self._max_in_flight)
        try:
            await self._read_requests(reader, writer, slots)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass  # the client went away
        except FrameError as exc:
            log.warning("node protocol: %s; closing the connection", exc)
        finally:
            self._connections.pop(task, None)
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def _read_requests(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, slots: asyncio.Semaphore
    ) -> None:
        while True:
            header = frames.decode_header(await reader.readexactly(frames.HEADER.size))
            payload = await reader.readexactly(header.length)
            if header.version != frames.PROTOCOL_VERSION:
                message = (
                    f"this node speaks version {frames.PROTOCOL_VERSION}, not {header.version}"
                )
                await _respond(writer, Status.UNSUPPORTED_VERSION, header.request_id, message)
                return
            try:
                op = Op(header.kind)
            except ValueError:
                message = f"unknown operation {header.kind}"
                await _respond(writer, Status.UNKNOWN_OP, header.request_id, message)
                continue
            _REQUESTS[op].inc()
            await slots.acquire()
            request = asyncio.create_task(self._answer(op, header.request_id, payload, writer))
            self._requests.add(request)
            request.add_done_callback(self._requests.discard)
            request.add_done_callback(lambda _: slots.release())

    async def _answer(
        self, op: Op, request_id: int, payload: bytes, writer: asyncio.StreamWriter
    ) -> None:
        try:
            result = await self._handle(op, frames.decode_request(op, payload))
        except NodeError as exc:
            await _respond(writer, frames.status_of(exc), request_id, str(exc))
        except ValueError as exc:  # FrameError too: a malformed payload
            await _respond(writer, Status.BAD_REQUEST, request_id, str(exc))
        except Exception as exc:
            log.exception("node protocol: %s failed", op.name)
            await _respond(writer, Status.INTERNAL, request_id, f"{type(exc).__name__}: {exc}")
        else:
            try:
                await _respond(writer, Status.OK, request_id, result)
            except FrameError as exc:  # an answer too large for one frame
                await _respond(writer, Status.BAD_REQUEST, request_id, str(exc))

    async def _handle(self, op: Op, request: Any) -> Any:
        handlers: dict[Op, Callable[[Any], Awaitable[Any]]] = {
            Op.APPEND: self._append,
            Op.READ_OFFSETS: self._read_offsets,
            Op.END_OFFSET: self._end_offset,
            Op.OFFSET_FOR_TIME: self._offset_for_time,
            Op.TIERING_STATUS: self._tiering_status,
            Op.CREATE_STREAM: self._create_stream,
            Op.DROP_STREAM: self._drop_stream,
            Op.PROBLEM: self._problem,
            Op.ABSENT: self._absent,
            Op.REPLICATE: self._replicate,
        }
        return await handlers[op](request)

    async def _append(self, request: frames.Append) -> int:
        target = request.target
        await self._ownership.admit(target.stream_id, target.partition, target.epoch, write=True)
        if request.replication not in REPLICATION_MODES:
            raise ValueError(f"replication is one of {', '.join(REPLICATION_MODES)}")
        mode: Replication = request.replication
        records = [frames.record_in(r) for r in request.records]
        return await self.sequences.append(
            target.stream_id,
            target.partition,
            request.producer_id,
            request.sequence,
            lambda: self._append_covered(target.stream_id, target.partition, records, mode),
        )

    async def _append_covered(
        self, stream_id: str, partition: int, records: list[RecordIn], mode: Replication
    ) -> int:
        """Appended to the log, its offsets reserved for this tenure, and copied as the
        stream's replication mode says: then it may be acknowledged."""
        offset = await self._node.append(stream_id, partition, records, replication=mode)
        await self._ownership.covered(stream_id, partition, offset + len(records))
        if self._copies is not None and mode != "none":
            await self._copies.copy(stream_id, partition, offset, records, mode)
        return offset

    async def _replicate(self, request: frames.Replicate) -> None:
        if self._replicas is None:
            raise ValueError("this node keeps no copies of other nodes' tails")
        target = request.target
        if target.epoch < 1:
            raise ValueError("a copy names the lease epoch of the tenure that made it")
        tenure = (target.stream_id, target.partition, target.epoch)
        await self._replicas.write(tenure, request.batches, archived_end=request.archived_end)

    async def _read_offsets(self, request: frames.ReadOffsets) -> list[frames.WireRecord]:
        target = await self._admit_read(request.target)
        found = await self._node.read_offsets(target.stream_id, target.partition, request.offsets)
        return frames.wire_records(list(found.values()))

    async def _absent(self, request: frames.ReadOffsets) -> frames.AbsentOffsets:
        target = await self._admit_read(request.target)
        absence = await self._node.absent(target.stream_id, target.partition, request.offsets)
        return frames.AbsentOffsets(sorted(absence.unavailable), sorted(absence.never_written))

    async def _end_offset(self, request: frames.Partition) -> int:
        target = await self._admit_read(request)
        return await self._node.end_offset(target.stream_id, target.partition)

    async def _offset_for_time(self, request: frames.OffsetForTime) -> int:
        target = await self._admit_read(request.target)
        return await self._node.offset_for_time(
            target.stream_id, target.partition, request.timestamp_ms
        )

    async def _tiering_status(self, request: frames.Partition) -> TieringStatus | None:
        target = await self._admit_read(request)
        return await self._node.tiering_status(target.stream_id, target.partition)

    async def _create_stream(self, request: frames.Descriptor) -> None:
        await self._node.create_stream(frames.stream_descriptor(request))

    async def _drop_stream(self, request: frames.StreamRef) -> None:
        await self._node.drop_stream(request.stream_id)
        self.sequences.forget_stream(request.stream_id)

    async def _problem(self, request: frames.Empty) -> str | None:
        return self._node.problem()

    async def _admit_read(self, target: frames.Partition) -> frames.Partition:
        await self._ownership.admit(target.stream_id, target.partition, target.epoch, write=False)
        return target


async def _respond(
    writer: asyncio.StreamWriter, status: Status, request_id: int, value: object
) -> None:
    if writer.is_closing():
        return  # the client is gone: nobody to answer
    writer.write(frames.encode_frame(status, request_id, frames.encode_payload(value)))
    if writer.transport.get_write_buffer_size() > _WRITE_HIGH_WATER_BYTES:
        with contextlib.suppress(ConnectionError):
            await writer.drain()
