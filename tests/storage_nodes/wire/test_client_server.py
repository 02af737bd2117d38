"""The node protocol end to end: a real LocalNode behind a NodeServer on loopback, and
NodeClient (or raw sockets) speaking to it."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from storage_nodes.copies import batches
from storage_nodes.copies.replica_store import ReplicaStore
from storage_nodes.local_node import LocalNode
from storage_nodes.node import (
    Absence,
    MessageAttribute,
    NodeUnreachable,
    NotOwner,
    RecordIn,
    StreamDescriptor,
    StreamDropped,
)
from storage_nodes.wire import frames
from storage_nodes.wire.client import NodeClient
from storage_nodes.wire.frames import Op, Status
from storage_nodes.wire.server import NodeServer, Ownership

Serve = Callable[..., Awaitable[tuple[NodeServer, str]]]


def _record(body: bytes, **extra: object) -> RecordIn:
    return RecordIn("m-" + body.decode(), 1_700_000_000_000 + len(body), body, **extra)  # type: ignore[arg-type]


class Gate:
    """Ownership that holds requests for one partition until opened; refuses another."""

    def __init__(self) -> None:
        self.opened = asyncio.Event()
        self.refused: set[int] = set()
        self.held = 1

    async def admit(self, stream_id: str, partition: int, epoch: int, *, write: bool) -> None:
        if partition in self.refused:
            raise NotOwner(f"partition {partition} is not this node's")
        if partition == self.held:
            await self.opened.wait()

    async def covered(self, stream_id: str, partition: int, end_offset: int) -> None:
        return None


@pytest.fixture
async def serve(tmp_path: Path) -> AsyncIterator[Serve]:
    started: list[tuple[NodeServer, LocalNode]] = []

    async def start(ownership: Ownership | None = None, port: int = 0) -> tuple[NodeServer, str]:
        node = LocalNode(tmp_path / f"node{len(started)}")
        server = NodeServer(node, ownership)
        host, bound = await server.start("127.0.0.1", port)
        started.append((server, node))
        return server, f"{host}:{bound}"

    yield start
    for server, node in started:
        await server.close()
        await node.close()


async def test_every_operation_round_trips(serve: Serve) -> None:
    _, address = await serve()
    client = NodeClient(address)
    descriptor = StreamDescriptor("s1", "123456789012", "queue", "orders", 1, 1_700_000_000_000)
    await client.create_stream(descriptor)
    attribute = MessageAttribute("String", string_value="v")
    first = _record(b"one", attributes={"a": attribute}, group_id="g", delay_ms=5)
    assert await client.append("s1", 0, [first, _record(b"two!")]) == 0
    assert await client.append("s1", 0, [_record(b"three")]) == 2
    assert await client.end_offset("s1", 0) == 3
    found = await client.read_offsets("s1", 0, [0, 2, 7])
    assert sorted(found) == [0, 2]
    assert found[0].attributes == {"a": attribute}
    assert (found[0].body, found[0].group_id, found[0].delay_ms) == (b"one", "g", 5)
    assert await client.offset_for_time("s1", 0, 1_700_000_000_005) == 2
    assert await client.absent("s1", 0, [7]) == Absence()  # no archive: nothing awaited
    assert await client.tiering_status("s1", 0) is None  # this node has no archive
    assert await client.fetch_problem() is None
    assert client.problem() is None
    await client.drop_stream("s1")
    with pytest.raises(StreamDropped):
        await client.end_offset("s1", 0)
    with pytest.raises(ValueError, match="invalid stream id"):
        await client.end_offset("no/such", 0)
    await client.close()


async def test_requests_are_pipelined_and_answered_as_they_complete(serve: Serve) -> None:
    gate = Gate()
    _, address = await serve(gate)
    client = NodeClient(address)
    held = asyncio.create_task(client.append("s1", 1, [_record(b"held")]))
    # Many requests on the one connection overtake the held one.
    bases = await asyncio.gather(
        *(client.append("s1", 0, [_record(b"%d" % i)]) for i in range(200))
    )
    assert sorted(bases) == list(range(200))
    assert not held.done()
    gate.opened.set()
    assert await held == 0
    await client.close()


async def test_a_raw_connection_gets_answers_by_request_id(serve: Serve) -> None:
    gate = Gate()
    _, address = await serve(gate)
    host, port = address.split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    # Sent together: the held one (id 7) first; the other (id 8) answers first.
    writer.write(
        frames.encode_frame(Op.END_OFFSET, 7, frames.encode_payload(frames.Partition("s", 1)))
        + frames.encode_frame(Op.END_OFFSET, 8, frames.encode_payload(frames.Partition("s", 0)))
        + frames.encode_frame(99, 9, b"")  # an unknown operation: answered, and reading goes on
    )
    answers = sorted([await _read_frame(reader) for _ in range(2)], key=lambda a: a[0].request_id)
    gate.opened.set()
    answers.append(await _read_frame(reader))
    assert [(h.request_id, h.kind) for h, _ in answers] == [
        (8, Status.OK), (9, Status.UNKNOWN_OP), (7, Status.OK),
    ]  # fmt: skip
    # Another version: refused, and the connection closed.
    writer.write(frames.HEADER.pack(frames.MAGIC, 2, Op.PROBLEM, 10, 0))
    header, payload = await _read_frame(reader)
    assert (header.request_id, header.kind) == (10, Status.UNSUPPORTED_VERSION)
    assert "version 1, not 2" in frames.decode_error_message(payload)
    assert await reader.read() == b""
    writer.close()


async def test_garbage_closes_the_connection_and_a_malformed_payload_is_a_bad_request(
    serve: Serve,
) -> None:
    _, address = await serve()
    host, port = address.split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(frames.encode_frame(Op.APPEND, 1, frames.encode_payload({"not": "append"})))
    header, payload = await _read_frame(reader)
    assert header.kind == Status.BAD_REQUEST
    assert "malformed APPEND" in frames.decode_error_message(payload)
    writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    assert await reader.read() == b""
    writer.close()


async def test_the_server_s_errors_come_back_typed(serve: Serve) -> None:
    gate = Gate()
    gate.refused.add(2)
    _, address = await serve(gate)
    client = NodeClient(address)
    with pytest.raises(NotOwner, match="partition 2"):
        await client.append("s1", 2, [_record(b"x")])
    with pytest.raises(NotOwner):
        await client.read_offsets("s1", 2, [0])
    await client.close()


async def test_a_repeated_append_is_appended_once(serve: Serve) -> None:
    server, address = await serve()
    client = NodeClient(address)
    record = [_record(b"once")]
    first = await client.append("s1", 0, record, producer_id="p", sequence=5)
    assert await client.append("s1", 0, record, producer_id="p", sequence=5) == first
    # Copies arriving together, while the first is still being appended: one append.
    again = await asyncio.gather(
        *(client.append("s1", 0, record, producer_id="p", sequence=6) for _ in range(5))
    )
    assert len(set(again)) == 1
    assert await client.end_offset("s1", 0) == 2
    # Another producer's sequence 5 is its own append.
    assert await client.append("s1", 0, record, producer_id="q", sequence=5) == 2
    # Forgotten (the lease moved away and back): a repeat would be appended again, so
    # the gateway never repeats across tenures (docs/cluster.md).
    server.sequences.forget("s1", 0)
    assert await client.append("s1", 0, record, producer_id="p", sequence=5) == 3
    await client.close()


async def test_a_sequence_older_than_the_window_is_refused(serve: Serve) -> None:
    server, address = await serve()
    client = NodeClient(address)
    window = 256
    for sequence in range(window + 1):
        await client.append("s1", 0, [_record(b"x")], producer_id="p", sequence=sequence)
    with pytest.raises(Exception, match="older than the last 256"):
        await client.append("s1", 0, [_record(b"x")], producer_id="p", sequence=0)
    assert await client.end_offset("s1", 0) == window + 1
    await client.close()
    assert server.in_flight == 0


async def test_an_unreachable_node_and_a_broken_connection(serve: Serve) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    nowhere = NodeClient(f"127.0.0.1:{free}")
    with pytest.raises(NodeUnreachable, match="cannot connect") as refused:
        await nowhere.end_offset("s1", 0)
    assert refused.value.sent is False
    assert nowhere.problem() is not None
    await nowhere.close()

    gate = Gate()
    server, address = await serve(gate)
    client = NodeClient(address, timeout_ms=300)
    with pytest.raises(NodeUnreachable, match="did not answer") as timed_out:
        await client.end_offset("s1", 1)
    assert timed_out.value.sent is True
    # A request waiting when the server goes: it may have been done.
    other = NodeClient(address)
    waiting = asyncio.create_task(other.end_offset("s1", 1))
    await asyncio.sleep(0.1)
    closing = asyncio.create_task(server.close())
    await asyncio.sleep(0.1)
    gate.opened.set()  # the server answers what it had begun before it closes
    await closing
    assert await waiting == 0
    await other.close()
    # The next request on the client finds the connection gone, and then reconnects.
    port = int(address.split(":")[1])
    with pytest.raises(NodeUnreachable):
        await client.end_offset("s1", 0)
    await serve(port=port)
    assert await client.end_offset("s1", 0) == 0
    await client.close()


async def _read_frame(reader: asyncio.StreamReader) -> tuple[frames.Header, bytes]:
    header = frames.decode_header(await reader.readexactly(frames.HEADER.size))
    return header, await reader.readexactly(header.length)


async def test_replicate_keeps_a_copy_where_the_node_keeps_replicas(
    serve: Serve, tmp_path: Path
) -> None:
    _, without = await serve()
    client = NodeClient(without)
    copy = batches.encode(5, [_record(b"copied")])
    with pytest.raises(ValueError, match="keeps no copies"):
        await client.replicate("s1", 0, 3, copy, archived_end=0)
    await client.close()

    replicas = ReplicaStore(tmp_path / "follower")
    server = NodeServer(LocalNode(tmp_path / "follower"), replicas=replicas)
    host, port = await server.start("127.0.0.1", 0)
    follower = NodeClient(f"{host}:{port}")
    try:
        await follower.replicate("s1", 0, 3, copy, archived_end=0)
        assert [(r.offset, r.body) for r in await replicas.records(("s1", 0, 3))] == [
            (5, b"copied")
        ]
        with pytest.raises(ValueError, match="batch"):
            await follower.replicate("s1", 0, 3, copy[:-1], archived_end=0)
        with pytest.raises(ValueError, match="lease epoch"):
            await follower.replicate("s1", 0, 0, copy, archived_end=0)
        assert len(await replicas.records(("s1", 0, 3))) == 1  # nothing more written
    finally:
        await follower.close()
        await server.close()


async def test_an_append_names_its_replication_with_none_by_default(serve: Serve) -> None:
    _, address = await serve()
    client = NodeClient(address)
    # An append of a client from before the field: decoded with `none`.
    older = frames.encode_payload(
        [frames.Partition("s1", 0), "p", 1, frames.wire_records([_record(b"old")])]
    )
    assert frames.decode_request(Op.APPEND, older).replication == "none"
    # A node without copies to make (tidemq up's) appends whatever the mode.
    assert await client.append("s1", 0, [_record(b"x")], replication="replica") == 0
    bad = frames.Append(frames.Partition("s1", 0), "p", 2, [], "twice")
    with pytest.raises(ValueError, match="replication is one of none, replica, object"):
        await client._call(Op.APPEND, bad)
    await client.close()
