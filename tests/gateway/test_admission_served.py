"""Fair admission in a real gateway: while one caller has many requests waiting, another
caller's request is served, a long poll that waits holds no slot, and a request that
waited for its turn is still judged on its input (4xx, nothing changed)."""

from __future__ import annotations

import asyncio
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import orjson
import pytest

from gateway.admission import AdmissionLimits, FairScheduler
from tests.conftest import TEST_ACCESS_KEY_ID, TEST_ACCOUNT_ID, RunningGateway, start_gateway
from tests.gateway.rest.conftest import DAY_MS, issue_token, rest_client

WAIT_S = 30.0


@pytest.fixture
def narrow_gateway(redis_url: str, tmp_path: Path) -> Iterator[RunningGateway]:
    """One request at a time per caller, two in all."""
    limits = AdmissionLimits(max_active=2, max_active_per_caller=1)
    running = start_gateway(redis_url, tmp_path / "data", admission=limits)
    yield running
    running.stop()


def _scheduler(gateway: RunningGateway) -> FairScheduler:
    scheduler: FairScheduler = gateway.server.config.app.state.admission
    return scheduler


def _until(condition: Callable[[], bool]) -> None:
    """Waits for something the server does on its own thread (no timing is asserted)."""
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, "the server did not get there"
        time.sleep(0.01)


def _token(gateway: RunningGateway) -> str:
    return asyncio.run(issue_token(gateway.redis_url, TEST_ACCOUNT_ID, DAY_MS)).token


def _send_request(token: str, body: bytes, declared_length: int | None = None) -> bytes:
    length = len(body) if declared_length is None else declared_length
    return (
        b"POST /v1/queues/orders/messages HTTP/1.1\r\nHost: tidemq\r\n"
        + f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n".encode()
        + f"Content-Length: {length}\r\n\r\n".encode()
        + body
    )


def _connect(gateway: RunningGateway) -> socket.socket:
    parts = urlsplit(gateway.url)
    assert parts.hostname is not None
    assert parts.port is not None
    return socket.create_connection((parts.hostname, parts.port), timeout=WAIT_S)


def _status(sock: socket.socket) -> int:
    status_line = sock.makefile("rb").readline()
    return int(status_line.split()[1])


def test_another_callers_request_is_served_while_one_caller_has_many_waiting(
    narrow_gateway: RunningGateway,
) -> None:
    scheduler = _scheduler(narrow_gateway)
    token = _token(narrow_gateway)
    caller = f"token:{token}"
    with rest_client(narrow_gateway.url, token) as rest:
        assert rest.post("/v1/queues", json={"name": "orders"}).status_code == 201
    # The caller's one slot is held by a send whose body has not arrived...
    malformed = b'{"body": not json!!}'
    holding = _connect(narrow_gateway)
    holding.sendall(_send_request(token, b"", declared_length=len(malformed)))
    _until(lambda: scheduler.active_of(caller) == 1)
    # ...and five more of its sends wait for it.
    waiting = [_connect(narrow_gateway) for _ in range(5)]
    for i, sock in enumerate(waiting):
        sock.sendall(_send_request(token, orjson.dumps({"body": f"m{i}"})))
    _until(lambda: scheduler.waiting_of(caller) == 5)

    # Another caller (the SigV4 test key) is served meanwhile.
    sqs = narrow_gateway.sqs_client()
    assert sqs.list_queues()["QueueUrls"][0].endswith("/orders")
    assert scheduler.waiting_of(f"key:{TEST_ACCESS_KEY_ID}") == 0
    readable, _, _ = select.select(waiting, [], [], 0)
    assert readable == []  # the first caller's requests still wait for their turn
    assert scheduler.waiting_of(caller) == 5

    # The held request's body arrives, malformed: a 400, and the waiting ones go on.
    holding.sendall(malformed)
    assert _status(holding) == 400
    assert [_status(sock) for sock in waiting] == [201] * 5
    for sock in [holding, *waiting]:
        sock.close()
    with rest_client(narrow_gateway.url, token) as rest:
        received = rest.post(
            "/v1/queues/orders/messages/receive", json={"max_messages": 10}
        ).json()["messages"]
    assert sorted(m["body"] for m in received) == [f"m{i}" for i in range(5)]
    assert scheduler.active == 0


def test_a_waiting_long_poll_holds_no_slot(narrow_gateway: RunningGateway) -> None:
    scheduler = _scheduler(narrow_gateway)
    token = _token(narrow_gateway)
    with rest_client(narrow_gateway.url, token) as rest:
        assert rest.post("/v1/queues", json={"name": "orders"}).status_code == 201
    answers: list[httpx.Response] = []

    def poll() -> None:
        with rest_client(narrow_gateway.url, token) as rest:
            answers.append(
                rest.post("/v1/queues/orders/messages/receive", json={"wait_seconds": 20})
            )

    poller = threading.Thread(target=poll)
    poller.start()
    _until(lambda: scheduler.parked == 1)
    assert scheduler.active == 0
    # The caller's only slot is free while its poll waits: its send goes through, and
    # the poll (taking a slot again, in turn) delivers what was sent.
    with rest_client(narrow_gateway.url, token) as rest:
        assert rest.post("/v1/queues/orders/messages", json={"body": "hi"}).status_code == 201
    poller.join(WAIT_S)
    assert not poller.is_alive()
    assert [m["body"] for m in answers[0].json()["messages"]] == ["hi"]
    assert scheduler.parked == 0
    assert scheduler.active == 0
