"""The e2e_ws workload of `tidemq bench`: from a REST publish to its push on a WebSocket.

One WebSocket connection subscribes to a queue (credit `CREDIT`, acking every push at
once without waiting for the answer, as a consumer keeping up does); single-message REST
publishes go to that queue at a fixed rate (scheduled_loop: open loop). Each message's
latency runs from its publish's *intended* send time to the moment its `deliver` frame is
read: generator and consumer share one process, hence one clock, and a side table maps
the index written in the body to that time. So a late sender, a slow publish answer and
queueing in the server all count (no coordinated omission).

A message not pushed within `DRAIN_TIMEOUT_S` of the last publish's answer counts as an
error, as does every failed publish or ack.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time

import aiohttp
import orjson

from tidemq.bench.http_client import HttpClient, HttpError
from tidemq.bench.load import Limits, Measured, Recorder, scheduled_loop
from tidemq.bench.workloads import message_body
from tidemq.bench.ws import OFFERED_COMPRESSION, WS_PATH

CREDIT = 1000  # far above what arrives between two pushes at any rate the bench offers
DRAIN_TIMEOUT_S = 10.0
_PREFIX = "e2e "
_INDEX_DIGITS = 12


def indexed_body(index: int) -> str:
    """A 256-byte body that starts with the message's index in the run."""
    head = f"{_PREFIX}{index:0{_INDEX_DIGITS}d} "
    return head + message_body()[len(head) :]


def index_of(body: str) -> int | None:
    if not body.startswith(_PREFIX):
        return None
    digits = body[len(_PREFIX) : len(_PREFIX) + _INDEX_DIGITS]
    return int(digits) if digits.isdigit() else None


class _Consumer:
    """Reads pushes, records each message's latency against its intended send time, and
    acks each push in one frame whose answer it checks when it arrives."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, queue: str, recorder: Recorder) -> None:
        self.ws = ws
        self.queue = queue
        self.recorder = recorder
        self.intended: dict[int, float] = {}  # index -> intended send time, until pushed
        self.publishing = True
        self.drained = asyncio.Event()  # set once publishing is over and nothing is due

    async def subscribe(self) -> None:
        frame = {"op": "subscribe", "queue": self.queue, "credit": CREDIT, "id": "s"}
        await self.ws.send_bytes(orjson.dumps(frame))
        answer = orjson.loads((await self.ws.receive()).data)
        if answer.get("type") != "subscribed":
            raise HttpError(f"subscribe failed: {answer}")

    def finish_publishing(self) -> None:
        self.publishing = False
        if not self.intended:
            self.drained.set()

    async def run(self) -> None:
        while True:
            message = await self.ws.receive()
            read_at = time.perf_counter()
            if message.type not in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY):
                raise HttpError(f"the connection ended: {message.type.name} {message.extra}")
            frame = orjson.loads(message.data)
            kind = frame.get("type")
            if kind == "deliver":
                await self._delivered(frame["messages"], read_at)
            elif kind == "settled":
                for result in frame.get("results", []):
                    if "error" in result:
                        self.recorder.failed(HttpError(f"ack failed: {result['error']}"))
            elif kind == "error":
                self.recorder.failed(HttpError(f"error frame: {frame}"))

    async def _delivered(self, messages: list[dict[str, object]], read_at: float) -> None:
        handles = []
        for pushed in messages:
            handles.append(pushed["receipt_handle"])
            body = pushed["body"]
            index = index_of(body) if isinstance(body, str) else None
            intended_s = None if index is None else self.intended.pop(index, None)
            if intended_s is None:
                self.recorder.failed(HttpError(f"a message not sent by this run: {body!r:.40}"))
                continue
            self.recorder.done(intended_s, read_at, 1)
        if not self.publishing and not self.intended:
            self.drained.set()
        ack = {"op": "ack", "queue": self.queue, "receipt_handles": handles}
        await self.ws.send_bytes(orjson.dumps(ack))


async def e2e_ws(
    session: aiohttp.ClientSession, http: HttpClient, queue: str, rate: float, limits: Limits
) -> Measured:
    """`rate` single REST publishes a second into `queue` (through `http`), each timed
    until a WebSocket to the same server (opened through `session`) subscribed to it is
    pushed the message."""
    base = http.base
    url = base.replace("http://", "ws://", 1) + WS_PATH
    ws = await session.ws_connect(url, compress=OFFERED_COMPRESSION)
    recorder = Recorder()
    consumer = _Consumer(ws, queue, recorder)
    reading: asyncio.Task[None] | None = None
    try:
        await consumer.subscribe()
        reading = asyncio.create_task(consumer.run(), name="e2e-consumer")
        messages_url = f"{base}/v1/queues/{queue}/messages"
        indexes = itertools.count()

        async def publish(intended_s: float) -> int:
            index = next(indexes)
            consumer.intended[index] = intended_s  # before the send: a push cannot beat it
            try:
                await http.post(messages_url, orjson.dumps({"body": indexed_body(index)}))
            except Exception:
                consumer.intended.pop(index, None)
                raise
            return 1

        published = await scheduled_loop(f"tidemq e2e @{rate:,.0f}/s", publish, rate, limits)
        consumer.finish_publishing()
        drained = asyncio.create_task(consumer.drained.wait())
        done, _ = await asyncio.wait(
            {drained, reading}, timeout=DRAIN_TIMEOUT_S, return_when=asyncio.FIRST_COMPLETED
        )
        drained.cancel()
        if reading in done:
            reading.result()  # the consumer failed: its exception says why
        for _ in range(len(consumer.intended)):
            recorder.failed(HttpError(f"not pushed within {DRAIN_TIMEOUT_S:.0f} s"))
        for _ in range(published.errors):
            recorder.failed(HttpError(f"publish failed: {published.first_error}"))
    finally:
        if reading is not None:
            reading.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reading
        await ws.close()
    return recorder.measured(limits.warmup_s)
