"""A request the HTTP parser refuses reaches no API: it gets a 400 with the REST API's
JSON error body (tidemq/http_protocol.py), not uvicorn's plain text, and the connection
is closed."""

from __future__ import annotations

import json
import socket
from urllib.parse import urlsplit

import pytest

from tests.conftest import RunningGateway


def _exchange(gateway: RunningGateway, request: bytes) -> tuple[bytes, dict[str, str], bytes]:
    parts = urlsplit(gateway.url)
    assert parts.hostname is not None
    assert parts.port is not None
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):  # read to the end: the server closes
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.split(b"\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    return status_line, headers, body


@pytest.mark.parametrize(
    "request_bytes",
    [
        # What schemathesis once sent: a Content-Length that is no number.
        b"POST /v1/move-tasks/j/cancel HTTP/1.1\r\nHost: x\r\n"
        b"content-length: --access-key-id\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\nBad Header Name: 1\r\n\r\n",
        b"NOT-HTTP\r\n\r\n",
    ],
)
def test_what_the_parser_refuses_gets_the_json_error_body(
    gateway: RunningGateway, request_bytes: bytes
) -> None:
    status_line, headers, body = _exchange(gateway, request_bytes)
    assert status_line.split()[1] == b"400", status_line
    assert headers["content-type"] == "application/json"
    assert headers["connection"] == "close"
    assert int(headers["content-length"]) == len(body)
    error = json.loads(body)["error"]
    assert error["code"] == "MalformedHttpRequest"
    assert "Nothing was done" in error["message"]
