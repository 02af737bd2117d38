"""The attacks of `loadtests/bench_abuse.py`, each bounded in count and in time.

Every scenario is an async function of the target, the sizes and the seconds it may run,
returning what the server answered (`AbuseStats`). The HTTP ones run on the closed and
open loops of `tidemq bench` (tidemq/bench/load.py), with its progress bar.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

import aiohttp
import orjson
from websockets.asyncio.client import connect

from loadtests import abuse_bad_requests as bad
from loadtests.abuse_bad_requests import BadRequest
from loadtests.abuse_probe import signed_headers
from tidemq.bench.load import Limits, Measured, Recorder, closed_loop, open_loop, progress
from tidemq.bench.servers import Credentials
from tidemq.bench.workloads import message_body, rest_session

FORM = "application/x-www-form-urlencoded; charset=utf-8"
SLOW_BYTE_EVERY_S = 1.0  # each slowloris connection sends one byte this often
WS_BODY = "x" * 64


@dataclass(frozen=True)
class Target:
    endpoint: str
    credentials: Credentials
    queues: dict[str, str]  # role -> queue name
    urls: dict[str, str]  # role -> the queue's SQS URL


@dataclass(frozen=True)
class Sizes:
    query_attributes: int = 4000
    query_connections: int = 2
    send_concurrency: int = 1000
    long_polls: int = 5000
    slowloris: int = 500
    ws_batch: int = 100
    ws_max_frames: int = 20_000
    bad_requests: int = 300
    max_requests: int = 200_000  # any closed loop, at most


@dataclass
class AbuseStats:
    """The attack's requests and how they were answered."""

    sent: int = 0  # HTTP requests begun
    statuses: Counter[int] = field(default_factory=Counter)
    errors: int = 0  # no answer: refused, reset, timed out
    first_error: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def answered(self, status: int) -> None:
        self.statuses[status] += 1

    def failed(self, exc: BaseException) -> None:
        self.errors += 1
        if self.first_error is None:
            self.first_error = f"{type(exc).__name__}: {exc}"[:300]

    def add_loop(self, measured: Measured) -> None:
        self.errors += measured.errors
        if self.first_error is None:
            self.first_error = measured.first_error

    @property
    def five_xx(self) -> int:
        return sum(n for status, n in self.statuses.items() if status >= 500)

    def summary(self) -> str:
        answered = " ".join(f"{s}x{n}" for s, n in sorted(self.statuses.items()))
        scalars = [f"{k} {v}" for k, v in self.detail.items() if not isinstance(v, dict)]
        http = [f"{self.sent} sent", f"{sum(self.statuses.values())} answered ({answered})"]
        return ", ".join(
            [*(http if self.sent or self.statuses else []), f"{self.errors} errors", *scalars]
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "requests": self.sent,
            # Still waiting for an answer when the time was up (cancelled).
            "unanswered": max(0, self.sent - sum(self.statuses.values()) - self.errors),
            "statuses": {str(s): n for s, n in sorted(self.statuses.items())},
            "five_xx": self.five_xx,
            "errors": self.errors,
            "first_error": self.first_error,
            **self.detail,
        }


Scenario = Callable[[Target, Sizes, float], Awaitable[AbuseStats]]


def _session(connections: int, timeout_s: float = 60.0) -> aiohttp.ClientSession:
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=connections, limit_per_host=connections),
        cookie_jar=aiohttp.DummyCookieJar(),
        auto_decompress=False,
        timeout=aiohttp.ClientTimeout(total=timeout_s),
    )


async def _post(
    session: aiohttp.ClientSession, url: str, body: bytes, headers: dict[str, str]
) -> tuple[int, bytes]:
    async with session.post(url, data=body, headers=headers) as response:
        return response.status, await response.read()


def query_send_body(queue_url: str, attributes: int) -> bytes:
    """A Query-protocol SendMessage with `attributes` well-formed message attributes."""
    form = [("Action", "SendMessage"), ("QueueUrl", queue_url), ("MessageBody", "hello")]
    for i in range(1, attributes + 1):
        prefix = f"MessageAttribute.{i}"
        form += [
            (f"{prefix}.Name", f"attr{i}"),
            (f"{prefix}.Value.DataType", "String"),
            (f"{prefix}.Value.StringValue", f"v{i}"),
        ]
    return urlencode(form).encode()


async def query_params(target: Target, sizes: Sizes, seconds: float) -> AbuseStats:
    """Signed SendMessage requests of thousands of attributes, back to back on a few
    connections (signed once: the signature stays valid for 15 minutes)."""
    body = query_send_body(target.urls["send"], sizes.query_attributes)
    key = target.credentials
    url = target.endpoint + "/"
    headers = signed_headers(
        url, body, {"Content-Type": FORM}, key.access_key_id, key.secret_access_key
    )
    stats = AbuseStats(detail={"attributes": sizes.query_attributes, "request_bytes": len(body)})
    async with _session(sizes.query_connections) as session:

        async def step() -> int:
            stats.sent += 1
            status, _ = await _post(session, url, body, headers)
            stats.answered(status)
            return 1

        limits = Limits(sizes.max_requests, seconds, 0.0)
        stats.add_loop(await closed_loop("query_params", step, sizes.query_connections, limits))
    return stats


async def send_burst(target: Target, sizes: Sizes, seconds: float) -> AbuseStats:
    """`send_concurrency` REST SendMessage calls in flight at all times."""
    url = f"{target.endpoint}/v1/queues/{target.queues['send']}/messages"
    body = orjson.dumps({"body": message_body()})
    stats = AbuseStats(detail={"concurrency": sizes.send_concurrency})
    async with rest_session(sizes.send_concurrency, target.credentials.token) as session:

        async def step() -> int:
            stats.sent += 1
            status, _ = await _post(session, url, body, {})
            stats.answered(status)
            return 1

        limits = Limits(sizes.max_requests, seconds, 0.0)
        stats.add_loop(await closed_loop("send_burst", step, sizes.send_concurrency, limits))
    return stats


async def long_poll_burst(target: Target, sizes: Sizes, seconds: float) -> AbuseStats:
    """`long_polls` REST receives waiting on an empty queue at once, polling again until
    the time is up (each wait at most SQS's 20 s)."""
    url = f"{target.endpoint}/v1/queues/{target.queues['idle']}/messages/receive"
    stats = AbuseStats(detail={"long_polls": sizes.long_polls})
    recorder = Recorder()
    deadline = time.monotonic() + seconds

    async def poller(session: aiohttp.ClientSession) -> None:
        while (left := deadline - time.monotonic()) > 0.5:
            wait_s = max(1, min(20, round(left)))
            body = orjson.dumps({"max_messages": 1, "wait_seconds": wait_s})
            began = time.perf_counter()
            stats.sent += 1
            try:
                status, _ = await _post(session, url, body, {})
            except Exception as exc:
                stats.failed(exc)
                recorder.failed(exc)
                await asyncio.sleep(0.1)
                continue
            stats.answered(status)
            recorder.done(began, time.perf_counter(), 1)
            if status != 200:
                await asyncio.sleep(0.1)  # refused: not straight back

    async with rest_session(sizes.long_polls, target.credentials.token) as session:
        with progress("long_poll_burst", recorder, sizes.long_polls, seconds):
            await asyncio.gather(*(poller(session) for _ in range(sizes.long_polls)))
    return stats


async def slowloris(target: Target, sizes: Sizes, seconds: float) -> AbuseStats:
    """`slowloris` connections trickling a byte a second: half of them a header line that
    never ends, half a body that never arrives whole; held for the time, then closed."""
    parts = urlsplit(target.endpoint)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    stats = AbuseStats(detail={"connections": sizes.slowloris, "closed_by_server": 0})
    recorder = Recorder()
    deadline = time.monotonic() + seconds
    head = f"POST / HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: {FORM}\r\n"

    async def one(index: int) -> None:
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 10)
        except Exception as exc:
            stats.failed(exc)
            return
        recorder.done(0.0, 0.0, 1)
        opening = "X-Trickle: " if index % 2 else "Content-Length: 100000\r\n\r\n"
        try:
            writer.write((head + opening).encode())
            await asyncio.sleep((index % 10) / 10)  # spread the trickle over the second
            while time.monotonic() < deadline:
                writer.write(b"a")
                await writer.drain()
                if reader.at_eof() or writer.transport.is_closing():
                    break
                wait_s = min(SLOW_BYTE_EVERY_S, deadline - time.monotonic())
                with contextlib.suppress(TimeoutError):
                    answer = await asyncio.wait_for(reader.read(4096), max(0.0, wait_s))
                    if answer:  # the server answered (and likely closed): it gave up on us
                        stats.answered(int(answer.split(b" ")[1]))
                    stats.detail["closed_by_server"] += 1
                    break
        except (OSError, ValueError, IndexError) as exc:
            stats.detail["closed_by_server"] += 1
            stats.failed(exc)
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    with progress("slowloris", recorder, sizes.slowloris, seconds):
        await asyncio.gather(*(one(i) for i in range(sizes.slowloris)))
    return stats


async def ws_flood(target: Target, sizes: Sizes, seconds: float) -> AbuseStats:
    """One WebSocket connection sending `publish` frames of `ws_batch` messages as fast as
    it can, never reading an answer, for the time or `ws_max_frames` frames; then held
    open, still unread, until the time is up. Uncompressed (the server offers
    permessage-deflate), so the frames' bytes are what crosses the socket."""
    url = target.endpoint.replace("http://", "ws://", 1) + "/v1/ws"
    messages = [{"body": WS_BODY}] * sizes.ws_batch
    frame = orjson.dumps({"op": "publish", "queue": target.queues["ws"], "messages": messages})
    detail: dict[str, Any] = {"frames_sent": 0, "frame_bytes": len(frame), "send_blocked": True}
    stats = AbuseStats(detail=detail)
    recorder = Recorder()
    headers = {"Authorization": f"Bearer {target.credentials.token}"}
    total = sizes.ws_max_frames * sizes.ws_batch
    with progress("ws_flood", recorder, total, seconds):
        try:
            ws = await connect(url, additional_headers=headers, compression=None)
        except Exception as exc:
            stats.failed(exc)
            return stats
        try:
            # A send still waiting when the time runs out: the server pushed back.
            async with asyncio.timeout(seconds):
                for _ in range(sizes.ws_max_frames):
                    await ws.send(frame)
                    detail["frames_sent"] += 1
                    recorder.handled += sizes.ws_batch
                detail["send_blocked"] = False
                await asyncio.sleep(seconds)  # ended by the timeout
        except TimeoutError:
            pass
        except Exception as exc:
            stats.failed(exc)
        finally:
            # No closing handshake: it cannot pass the unread answers anyway. Just go.
            ws.transport.abort()
            with contextlib.suppress(Exception):
                async with asyncio.timeout(2):
                    await ws.wait_closed()
    return stats


async def _bad_requests(
    label: str, requests: list[BadRequest], target: Target, sizes: Sizes, seconds: float
) -> AbuseStats:
    """`bad_requests` requests cycling through `requests`, spread evenly over the time;
    each XML answer must parse."""
    stats = AbuseStats(detail={"bad_xml": 0, "by_request": {}})
    by_request: dict[str, Counter[str]] = {r.name: Counter() for r in requests}
    turn = itertools.cycle(requests)
    async with _session(16, timeout_s=30) as session:

        async def step() -> int:
            request = next(turn)
            stats.sent += 1
            url = target.endpoint + request.path
            async with session.request(
                request.method, url, data=request.body, headers=request.headers
            ) as response:
                answer = await response.read()
            stats.answered(response.status)
            by_request[request.name][str(response.status)] += 1
            if request.xml:
                try:
                    ET.fromstring(answer)
                except ET.ParseError:
                    stats.detail["bad_xml"] += 1
                    by_request[request.name]["bad_xml"] += 1
            return 1

        rate = sizes.bad_requests / seconds
        limits = Limits(sizes.bad_requests, seconds, 0.0)
        stats.add_loop(await open_loop(label, step, rate, limits))
    stats.detail["by_request"] = {name: dict(c) for name, c in by_request.items()}
    return stats


def _bad_target(target: Target, role: str) -> bad.Target:
    return bad.Target(target.endpoint, target.credentials, target.queues[role], target.urls[role])


async def unicode_digits(target: Target, sizes: Sizes, seconds: float) -> AbuseStats:
    requests = bad.unicode_digit_requests(_bad_target(target, "digits"))
    return await _bad_requests("unicode_digits", requests, target, sizes, seconds)


async def poison_xml(target: Target, sizes: Sizes, seconds: float) -> AbuseStats:
    requests = bad.poison_xml_requests(_bad_target(target, "poison"))
    return await _bad_requests("poison_xml", requests, target, sizes, seconds)


SCENARIOS: dict[str, Scenario] = {
    "query_params": query_params,
    "send_burst": send_burst,
    "long_poll_burst": long_poll_burst,
    "slowloris": slowloris,
    "ws_flood": ws_flood,
    "unicode_digits": unicode_digits,
    "poison_xml": poison_xml,
}
