"""The WebSocket workloads of `tidemq bench`, and the ceiling app's WebSocket endpoint.

- publish_ws: `--batch-size` 256 B messages a `publish` frame, each connection waiting
  for the `published` answer before the next (the WebSocket counterpart of
  publish_batch_rest).
- consume_ws: each connection subscribed with a credit of twice the batch size; a step
  waits for the next `deliver` frame, acks all of its messages in one `ack` frame and
  waits for the `settled` answer. Pushes keep coming while it waits (the credit), as a
  real consumer sees them.

The ceiling's endpoint (`ceiling_websocket`) answers the same frames with answers of the
same shape and size without doing anything: `published` for a publish; for a subscribe
and for each ack, synthetic `deliver` frames refilling the credit, messages of a real
message's size. Connections are aiohttp's WebSocket client, in the bench's own session.
"""

from __future__ import annotations

import asyncio
import functools
from collections import deque
from typing import Any

import aiohttp
import orjson
from starlette.websockets import WebSocket, WebSocketDisconnect

from tidemq.bench.http_client import HttpError
from tidemq.bench.load import AsyncStep
from tidemq.bench.workloads import message_body

WS_PATH = "/v1/ws"
MAX_FRAMES_IN_DELIVER = 100  # the most messages TideMQ pushes in one frame
# permessage-deflate with a 32 KiB window, offered on every upgrade as the `websockets`
# client (the Python SDK's) and browsers offer it: what the server makes of the offer
# is part of what is measured.
OFFERED_COMPRESSION = 15


class WsConnections:
    """Connections handed out one per step: with as many workers as connections, each
    worker keeps using the one it got, so frames on a connection are never interleaved."""

    def __init__(self) -> None:
        self._free: asyncio.Queue[_Connection] = asyncio.Queue()
        self._all: list[aiohttp.ClientWebSocketResponse] = []

    async def open(self, session: aiohttp.ClientSession, base: str, count: int) -> None:
        url = base.replace("http://", "ws://", 1) + WS_PATH
        for _ in range(count):
            ws = await session.ws_connect(
                url, max_msg_size=16 * 1024 * 1024, compress=OFFERED_COMPRESSION
            )
            self._all.append(ws)
            self._free.put_nowait(_Connection(ws))

    async def close(self) -> None:
        for ws in self._all:
            await ws.close()

    async def subscribe_all(self, queue: str, credit: int) -> None:
        connections = [self._free.get_nowait() for _ in range(self._free.qsize())]
        for connection in connections:
            answer = await connection.request({"op": "subscribe", "queue": queue, "credit": credit})
            if answer["type"] != "subscribed":
                raise HttpError(f"subscribe failed: {answer}")
            self._free.put_nowait(connection)

    def publish(self, queue: str, size: int) -> AsyncStep:
        frame = {"op": "publish", "queue": queue, "messages": [{"body": message_body()}] * size}

        async def step() -> int:
            connection = await self._free.get()
            try:
                answer = await connection.request(frame)
            finally:
                self._free.put_nowait(connection)
            results = answer.get("results") or []
            failed = [r for r in results if "error" in r]
            if answer["type"] != "published" or failed or len(results) != size:
                raise HttpError(f"publish failed: {answer if not failed else failed[0]}")
            return size

        return step

    def consume(self, queue: str) -> AsyncStep:
        async def step() -> int:
            connection = await self._free.get()
            try:
                delivered = await connection.next_delivery()
                handles = [m["receipt_handle"] for m in delivered["messages"]]
                answer = await connection.request(
                    {"op": "ack", "queue": queue, "receipt_handles": handles}
                )
            finally:
                self._free.put_nowait(connection)
            failed = [r for r in answer.get("results", []) if "error" in r]
            if answer["type"] != "settled" or failed:
                raise HttpError(f"ack failed: {answer}")
            return len(handles)

        return step


class _Connection:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self._ws = ws
        self._pushed: deque[dict[str, Any]] = deque()
        self._next_id = 0

    async def request(self, frame: dict[str, Any]) -> dict[str, Any]:
        """Sends the frame; its answer. Pushes read meanwhile are kept for next_delivery."""
        self._next_id += 1
        request_id = str(self._next_id)
        await self._ws.send_bytes(orjson.dumps({**frame, "id": request_id}))
        while True:
            answer = await self._receive()
            if answer.get("id") == request_id:
                return answer
            self._pushed.append(answer)

    async def next_delivery(self) -> dict[str, Any]:
        frame = self._pushed.popleft() if self._pushed else await self._receive()
        if frame["type"] != "deliver":
            raise HttpError(f"expected a delivery, got {frame}")
        return frame

    async def _receive(self) -> dict[str, Any]:
        message = await self._ws.receive()
        if message.type not in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY):
            raise HttpError(f"the connection ended: {message.type.name} {message.extra}")
        frame: dict[str, Any] = orjson.loads(message.data)
        return frame


# The ceiling's endpoint.

_RECEIPT = "A" * 72  # the length of a TideMQ receipt handle


def _message_id(index: int) -> str:
    return f"00000000-0000-4000-8000-{index:012d}"


def _synthetic_message(index: int) -> dict[str, Any]:
    """A pushed message of a real one's fields and size (REST shape)."""
    return {
        "message_id": _message_id(index),
        "receipt_handle": _RECEIPT,
        "body": message_body(),
        "md5_of_body": "0" * 32,
        "attributes": {},
        "system_attributes": {},
        "receive_count": 1,
        "sent_timestamp": 1_700_000_000_000,
        "first_receive_timestamp": 1_700_000_000_000,
    }


@functools.cache
def _deliver_frames(queue: str, count: int) -> list[bytes]:
    """Built once per (queue, count): the ceiling must not spend time a server would not."""
    frames = []
    while count > 0:
        size = min(count, MAX_FRAMES_IN_DELIVER)
        messages = [_synthetic_message(i) for i in range(size)]
        frames.append(orjson.dumps({"type": "deliver", "queue": queue, "messages": messages}))
        count -= size
    return frames


async def ceiling_websocket(websocket: WebSocket) -> None:
    await websocket.accept()
    try:
        while True:
            frame = orjson.loads(await websocket.receive_bytes())
            op, queue, request_id = frame.get("op"), frame.get("queue", ""), frame.get("id")
            pushes: list[bytes] = []
            if op == "publish":
                results = [
                    {
                        "index": i,
                        "message_id": _message_id(i),
                        "md5_of_body": "0" * 32,
                    }
                    for i in range(len(frame["messages"]))
                ]
                answer = {"type": "published", "queue": queue, "results": results}
            elif op == "subscribe":
                answer = {"type": "subscribed", "queue": queue, "credit": frame["credit"]}
                pushes = _deliver_frames(queue, frame["credit"])
            else:  # an ack: settled, and the credit it freed refilled
                handles = frame.get("receipt_handles", [])
                answer = {
                    "type": "settled",
                    "op": "ack",
                    "queue": queue,
                    "results": [{"index": i} for i in range(len(handles))],
                }
                pushes = _deliver_frames(queue, len(handles))
            await websocket.send_bytes(orjson.dumps({**answer, "id": request_id}))
            for push in pushes:
                await websocket.send_bytes(push)
    except WebSocketDisconnect:
        return
