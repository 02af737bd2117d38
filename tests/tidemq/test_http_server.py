"""Connections are accepted in bounded rounds: each round takes at most `per_round` from
the listen backlog and leaves the rest there, and every connection is served in the end."""

from __future__ import annotations

import asyncio
import socket
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest

from tests.conftest import TidemqUp
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
