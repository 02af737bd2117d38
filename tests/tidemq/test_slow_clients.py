"""Slow clients are timed out: connections trickling a request's headers or body are
closed after TIDEMQ_REQUEST_READ_TIMEOUT_S, while a long poll and a WebSocket live on."""

from __future__ import annotations

import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.conftest import TidemqUp


def _connect(endpoint: str) -> socket.socket:
    parts = urlsplit(endpoint)
    assert parts.hostname is not None
    assert parts.port is not None
    return socket.create_connection((parts.hostname, parts.port), timeout=10)


def _accept_backlog(port: int) -> int:
    """Connections the kernel has completed for the server listening on `port` that the
    server has not accepted yet (a listening socket's rx_queue in /proc/net/tcp)."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local_port = int(fields[1].rsplit(":", 1)[1], 16)
        if local_port == port and fields[3] == "0A":  # 0A: LISTEN
            return int(fields[4].split(":")[1], 16)
    raise AssertionError(f"nothing listens on port {port}")


def _closed_by_server(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) == b""
    except (ConnectionResetError, TimeoutError):
        return True


@pytest.mark.slow
def test_trickling_clients_are_closed_and_others_are_served(tidemq_up: TidemqUp) -> None:
    server = tidemq_up(settings={"TIDEMQ_REQUEST_READ_TIMEOUT_S": "1"})
    trickling: list[socket.socket] = []
    for i in range(200):
        sock = _connect(server.endpoint)
        if i % 2:  # headers that never end
            sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        else:  # a body that never arrives whole
            sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nab")
        trickling.append(sock)
    sqs = server.sqs_client()
    url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    started = time.monotonic()
    # A long poll outlives the read deadline: it only waits once its request is complete.
    answer = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=3)
    assert time.monotonic() - started >= 2.5
    assert "Messages" not in answer
    time.sleep(0.5)
    for sock in trickling:
        sock.settimeout(5)
        assert _closed_by_server(sock)
        sock.close()
    assert httpx.get(f"{server.endpoint}/healthz").status_code == 200
    assert server.stop() == 0


@pytest.mark.slow
def test_connections_past_the_cap_are_refused_with_503(tidemq_up: TidemqUp) -> None:
    server = tidemq_up(settings={"TIDEMQ_MAX_CONNECTIONS": "20"})
    held = [_connect(server.endpoint) for _ in range(40)]
    # All accepted, so that twice the cap is open (accepting them takes the server a
    # while on a loaded machine), and their protocols made.
    port = urlsplit(server.endpoint).port
    assert port is not None
    deadline = time.monotonic() + 30
    while _accept_backlog(port) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    for sock in held:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    statuses = set()
    for sock in held:
        sock.settimeout(10)
        statuses.add(sock.recv(64).split(b" ")[1])
        sock.close()
    assert statuses == {b"503"}, "past the cap, requests are refused, not queued without end"
    time.sleep(0.5)
    assert httpx.get(f"{server.endpoint}/healthz").status_code == 200, "served once they close"
    assert server.stop() == 0
