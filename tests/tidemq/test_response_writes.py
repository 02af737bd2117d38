"""A response's status line and headers go out with its body in one write
(tidemq/http_protocol.py, HeadWithBody), against a real uvicorn with the gateway's
protocol: one data segment reaches the client per response (the kernel's own count,
TCP_INFO), a HEAD's head still goes out, and a "100 Continue" is not held back."""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.served_apps import serve
from tidemq.http_protocol import with_read_timeout

# struct tcp_info (linux/tcp.h): tcpi_data_segs_in, the data segments received, is the
# u32 at byte 152 (since Linux 4.6).
_TCP_INFO_BYTES = 160
_DATA_SEGS_IN_AT = 152


async def _echo_length(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answers how many body bytes it read, padded to 2 000 bytes (one segment on
    loopback, more than the head)."""
    assert scope["type"] == "http"
    read = 0
    while scope["method"] == "POST":
        message = await receive()
        read += len(message.get("body", b""))
        if not message.get("more_body"):
            break
    body = str(read).encode().ljust(2000)
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


@pytest.fixture(scope="module")
def endpoint() -> Iterator[tuple[str, int]]:
    with serve(_echo_length, http=with_read_timeout(30.0), lifespan="off") as url:
        parts = urlsplit(url)
        assert parts.hostname is not None
        assert parts.port is not None
        yield parts.hostname, parts.port


def _data_segments_in(sock: socket.socket) -> int:
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_BYTES)
    return int(struct.unpack_from("I", info, _DATA_SEGS_IN_AT)[0])


def _read_response(reader: Any, head_only: bool = False) -> tuple[bytes, bytes]:
    status = reader.readline()
    length = 0
    while (line := reader.readline()) != b"\r\n":
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return status, b"" if head_only else reader.read(length)


def test_each_response_reaches_the_client_in_one_segment(endpoint: tuple[str, int]) -> None:
    with socket.create_connection(endpoint, timeout=10) as sock:
        reader = sock.makefile("rb")
        for _ in range(3):  # keep-alive: every response of the connection
            before = _data_segments_in(sock)
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            status, body = _read_response(reader)
            assert status.startswith(b"HTTP/1.1 200")
            assert body.strip() == b"0"
            assert _data_segments_in(sock) - before == 1


def test_a_head_response_goes_out_though_it_has_no_body(endpoint: tuple[str, int]) -> None:
    with socket.create_connection(endpoint, timeout=10) as sock:
        reader = sock.makefile("rb")
        sock.sendall(b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
        status, _ = _read_response(reader, head_only=True)
        assert status.startswith(b"HTTP/1.1 200")
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")  # and the connection goes on
        assert _read_response(reader)[0].startswith(b"HTTP/1.1 200")


def test_a_100_continue_goes_out_before_the_client_sends_its_body(
    endpoint: tuple[str, int],
) -> None:
    with socket.create_connection(endpoint, timeout=10) as sock:
        reader = sock.makefile("rb")
        sock.sendall(
            b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n"
        )
        assert reader.readline() == b"HTTP/1.1 100 Continue\r\n"
        assert reader.readline() == b"\r\n"
        sock.sendall(b"hello")
        status, body = _read_response(reader)
        assert status.startswith(b"HTTP/1.1 200")
        assert body.strip() == b"5"
