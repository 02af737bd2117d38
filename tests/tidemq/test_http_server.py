"""Connections are accepted in bounded rounds: each round takes at most `per_round` from
the listen backlog and leaves the rest there, and every connection is served in the end;
new connections' first requests and connections their clients close are taken a round at
a time too, in order."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest

from tests.conftest import TidemqUp
from tidemq.http_protocol import ConnectionRounds
from tidemq.http_server import RoundsAcceptor


class _Counted(asyncio.Protocol):
    made: list[asyncio.BaseTransport]

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.made.append(transport)


async def _settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


async def test_each_round_accepts_at_most_its_share_of_the_backlog() -> None:
    made: list[asyncio.BaseTransport] = []

    class Protocol(_Counted):
        pass

    Protocol.made = made
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    # Loopback connects complete in the kernel's backlog before anyone accepts them.
    clients = [socket.create_connection(listener.getsockname()) for _ in range(12)]
    acceptor = RoundsAcceptor(listener, Protocol, per_round=5)
    counts = []
    for _ in range(4):
        acceptor.accept_round()
        await _settle()
        counts.append(len(made))
    assert counts == [5, 10, 12, 12]
    acceptor.close()
    await acceptor.wait_closed()
    for transport in made:
        transport.close()
    for client in clients:
        client.close()


async def test_the_acceptor_serves_every_connection_of_a_storm() -> None:
    made: list[asyncio.BaseTransport] = []

    class Protocol(_Counted):
        pass

    Protocol.made = made
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(256)
    acceptor = RoundsAcceptor(listener, Protocol, per_round=3)
    acceptor.start()
    clients = [socket.create_connection(listener.getsockname()) for _ in range(100)]
    for _ in range(1000):
        if len(made) == 100:
            break
        await asyncio.sleep(0.01)
    assert len(made) == 100
    acceptor.close()
    assert listener.fileno() == -1  # closed: no more connections are taken
    for transport in made:
        transport.close()
    for client in clients:
        client.close()


def _healthz(endpoint: str) -> bytes:
    parts = urlsplit(endpoint)
    assert parts.hostname is not None
    assert parts.port is not None
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return sock.makefile("rb").readline()


@pytest.mark.slow
def test_tidemq_up_accepting_one_connection_a_round_serves_a_crowd(tidemq_up: TidemqUp) -> None:
    server = tidemq_up(settings={"TIDEMQ_ACCEPT_PER_ROUND": "1"})
    with ThreadPoolExecutor(100) as pool:
        status_lines = list(pool.map(_healthz, [server.endpoint] * 300))
    assert {line.split()[1] for line in status_lines} == {b"200"}
    assert server.stop() == 0


async def test_connection_rounds_do_a_bounded_share_of_the_work_each_turn_in_order() -> None:
    rounds = ConnectionRounds(asyncio.get_running_loop(), per_round=3)
    assert [rounds.take() for _ in range(5)] == [True, True, True, False, False]
    done: list[tuple[int, int]] = []
    turn = 0

    def work(index: int, alive: bool = True) -> Callable[[], bool]:
        def run() -> bool:
            if alive:
                done.append((turn, index))
            return alive

        return run

    for index in range(8):
        rounds.defer(work(index, alive=index != 2))  # the third's connection went
    assert not rounds.take()  # work is waiting: nothing jumps the queue
    while rounds.waiting:
        turn += 1
        await asyncio.sleep(0)
    assert [index for _, index in done] == [0, 1, 3, 4, 5, 6, 7]
    per_turn = [sum(1 for t, _ in done if t == n) for n in sorted({t for t, _ in done})]
    assert max(per_turn) <= 3


def _served_then_closed(endpoint: str) -> tuple[bytes, bytes]:
    """A keep-alive request, then the client closes its side: the status line, and what
    the server sends after (b"" once it closed the connection too)."""
    parts = urlsplit(endpoint)
    assert parts.hostname is not None
    assert parts.port is not None
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = sock.makefile("rb")
        status_line = answer.readline()
        length = 0
        while (header := answer.readline()) not in (b"\r\n", b""):
            name, _, value = header.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        answer.read(length)
        sock.shutdown(socket.SHUT_WR)
        return status_line, sock.recv(64)


@pytest.mark.slow
def test_clients_closing_together_are_all_closed_in_rounds(tidemq_up: TidemqUp) -> None:
    server = tidemq_up(settings={"TIDEMQ_ACCEPT_PER_ROUND": "1"})
    with ThreadPoolExecutor(100) as pool:
        outcomes = list(pool.map(_served_then_closed, [server.endpoint] * 200))
    assert {status.split()[1] for status, _ in outcomes} == {b"200"}
    assert {after for _, after in outcomes} == {b""}
    assert server.stop() == 0
