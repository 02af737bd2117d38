"""A thin client of TideMQ's WebSocket API (`/v1/ws`, docs/websocket.md): subscribe to a
queue (or to a topic's pull subscription) with a credit and iterate over its deliveries,
ack / nack / extend them, publish to a queue or a topic.

    async with websocket.connect() as connection:  # TIDEMQ_ENDPOINT, TIDEMQ_TOKEN
        subscription = await connection.subscribe("orders", credit=10)
        await connection.publish("orders", ["hello"])
        async for delivery in subscription:
            print(delivery.body)
            await delivery.ack()

Frames are the generated models of sdk/asyncapi.json (tidemq_client.frames.models). One
task reads the connection: answers go to whoever sent the frame (matched by `id`),
`deliver` frames to their Subscription (tidemq_client.subscription).

The connection authenticates with a bearer token only (`tidemq keys token`): the
WebSocket API takes no SigV4. Closing the connection makes its unsettled messages
visible again at once. Errors are tidemq_client.errors' ApiErrors (an `error` frame, or
a refused upgrade) and ConnectionClosed.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
from collections.abc import Generator, Sequence
from types import TracebackType
from typing import Any, Self, TypeVar

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed as WsConnectionClosed
from websockets.exceptions import InvalidStatus

from tidemq_client.errors import (
    ApiError,
    ConnectionClosed,
    TidemqError,
    api_error,
    from_response_body,
)
from tidemq_client.frames.models import (
    Ack,
    CreditSet,
    Deliver,
    ErrorFrame,
    Extend,
    Nack,
    Publish,
    Published,
    SendMessage,
    SendResult,
    SetCredit,
    Settled,
    Subscribe,
    Subscribed,
    Unsubscribe,
    Unsubscribed,
)
from tidemq_client.frames.types import UNSET
from tidemq_client.rest_client import DEFAULT_ENDPOINT
from tidemq_client.subscription import Delivery, Subscription

log = logging.getLogger(__name__)

PATH = "/v1/ws"
DEFAULT_ANSWER_TIMEOUT_S = 30.0

ClientFrame = Subscribe | SetCredit | Unsubscribe | Ack | Nack | Extend | Publish
ServerFrame = Subscribed | CreditSet | Unsubscribed | Deliver | Settled | Published | ErrorFrame
_SERVER_FRAMES: dict[str, type[ServerFrame]] = {
    "subscribed": Subscribed,
    "credit_set": CreditSet,
    "unsubscribed": Unsubscribed,
    "deliver": Deliver,
    "settled": Settled,
    "published": Published,
    "error": ErrorFrame,
}
_Answer = TypeVar("_Answer", bound=ServerFrame)


def websocket_url(endpoint: str) -> str:
    """`http://host:port` (the REST endpoint) -> `ws://host:port/v1/ws`; `https` -> `wss`."""
    if endpoint.startswith(("ws://", "wss://")):
        return endpoint
    scheme, sep, rest = endpoint.partition("://")
    if not sep or scheme not in ("http", "https"):
        raise ValueError(f"not an http(s) or ws(s) URL: {endpoint!r}")
    return ("wss://" if scheme == "https" else "ws://") + rest.rstrip("/") + PATH


class Connection:
    """One WebSocket connection; any number of subscriptions (one per queue or pull
    subscription) and publishes."""

    def __init__(self, websocket: ClientConnection, answer_timeout_s: float) -> None:
        self._websocket = websocket
        self._answer_timeout_s = answer_timeout_s
        self._ids = (f"c{n}" for n in itertools.count(1))
        self._pending: dict[str, asyncio.Future[ServerFrame]] = {}
        self._subscriptions: dict[str, Subscription] = {}
        self.closed = False
        self._reader = asyncio.create_task(self._read(), name="tidemq-websocket-reader")

    async def subscribe(
        self,
        queue: str | None = None,
        credit: int = 10,
        visibility_timeout_s: int | None = None,
        *,
        subscription: str | None = None,
    ) -> Subscription:
        """Starts pushing the messages of `queue`, or of the topic's pull `subscription`
        (its id), at most `credit` unsettled at a time, each invisible to other receivers
        for `visibility_timeout_s` (default: the queue's or the subscription's)."""
        key = _key(queue, subscription)
        pushed = Subscription(self, queue, credit, pull=subscription)
        self._subscriptions.setdefault(key, pushed)
        frame = Subscribe(
            op="subscribe",
            **pushed.names(),
            credit=credit,
            visibility_timeout=UNSET if visibility_timeout_s is None else visibility_timeout_s,
        )
        try:
            await self.request(frame, Subscribed)
        except BaseException:
            if self._subscriptions.get(key) is pushed:
                del self._subscriptions[key]
            raise
        self._subscriptions[key] = pushed
        return pushed

    async def unsubscribe(
        self, queue: str | None = None, *, subscription: str | None = None
    ) -> None:
        """Ends the subscription to `queue` (or to the pull `subscription`): its unsettled
        messages become visible again."""
        key = _key(queue, subscription)
        names = {"queue": queue} if queue is not None else {"subscription": subscription}
        await self.request(Unsubscribe(op="unsubscribe", **names), Unsubscribed)
        ended = self._subscriptions.pop(key, None)
        if ended is not None:
            ended._end(None)

    async def publish(
        self,
        queue: str | None,
        messages: Sequence[SendMessage | str],
        *,
        topic: str | None = None,
    ) -> list[SendResult]:
        """Sends up to 100 messages (a str is a message with that body) to `queue`, or
        publishes them to `topic` (then `queue` is None), answered once they are durable:
        one result per message, with `error` set where one failed."""
        if (queue is None) == (topic is None):
            raise ValueError("publish to a queue or to a topic: give exactly one")
        target = {"queue": queue} if queue is not None else {"topic": topic}
        frame = Publish(
            op="publish",
            **target,
            messages=[SendMessage(body=m) if isinstance(m, str) else m for m in messages],
        )
        return (await self.request(frame, Published)).results

    async def request(self, frame: ClientFrame, answer_type: type[_Answer]) -> _Answer:
        """Sends a frame with a fresh `id` and returns the server's answer to it, of
        `answer_type`; an `error` answer raises its ApiError."""
        if self.closed:
            raise ConnectionClosed(None, "the connection is closed")
        frame.id = next(self._ids)
        answer: asyncio.Future[ServerFrame] = asyncio.get_running_loop().create_future()
        self._pending[frame.id] = answer
        try:
            await self._websocket.send(json.dumps(frame.to_dict()))
            got = await asyncio.wait_for(answer, self._answer_timeout_s)
        except WsConnectionClosed as exc:
            raise _closed(exc) from exc
        finally:
            self._pending.pop(frame.id, None)
        if not isinstance(got, answer_type):
            raise TidemqError(f"a {type(got).__name__} frame answered {frame.op}")
        return got

    async def close(self) -> None:
        self.closed = True
        await self._websocket.close()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader

    async def _read(self) -> None:
        ending: TidemqError | None = None
        try:
            async for raw in self._websocket:
                data = json.loads(raw)
                frame_type = _SERVER_FRAMES.get(data.get("type"))
                if frame_type is None:
                    log.debug("ignoring a frame of type %r", data.get("type"))
                else:
                    self._dispatch(frame_type.from_dict(data))
        except WsConnectionClosed as exc:
            ending = _closed(exc)
        except Exception:
            log.exception("reading the TideMQ WebSocket failed")
            ending = ConnectionClosed(None, "the client failed to read a frame")
            await self._websocket.close()
        finally:
            if ending is None and not self.closed:
                ending = _closed_by_server(self._websocket)
            self.closed = True
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ending or ConnectionClosed(1000, ""))
            for subscription in self._subscriptions.values():
                subscription._end(ending)
            self._subscriptions.clear()

    def _dispatch(self, frame: ServerFrame) -> None:
        if isinstance(frame, Deliver):
            subscription = self._subscriptions.get(_key_of(frame))
            if subscription is not None:
                subscription._deliver(frame.messages)
            return
        error = (
            api_error(frame.error.code, frame.error.message)
            if isinstance(frame, ErrorFrame)
            else None
        )
        waiting = self._pending.get(frame.id) if isinstance(frame.id, str) else None
        if waiting is not None and not waiting.done():
            if error is not None:
                waiting.set_exception(error)
            else:
                waiting.set_result(frame)
        elif isinstance(frame, Unsubscribed) and frame.reason:
            # The server ended the subscription itself: its queue was deleted.
            subscription = self._subscriptions.pop(_key_of(frame), None)
            if subscription is not None:
                subscription._end(api_error(frame.reason.code, frame.reason.message))
        elif error is not None:
            # No frame of ours failed: the connection did (a revoked token); it closes next.
            for subscription in self._subscriptions.values():
                subscription._end(error)
            self._subscriptions.clear()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()


def connect(
    endpoint: str | None = None,
    token: str | None = None,
    *,
    answer_timeout_s: float = DEFAULT_ANSWER_TIMEOUT_S,
) -> Connecting:
    """Opens a connection to the WebSocket API of `endpoint` (the REST endpoint,
    `http://host:port`, or the `ws://.../v1/ws` URL; default: TIDEMQ_ENDPOINT, else
    http://127.0.0.1:9324) with a bearer token (default: TIDEMQ_TOKEN): `await` it for
    the Connection, or use it in `async with`, which closes the connection at the end. A
    refused upgrade raises its ApiError (Unauthorized for a bad token)."""
    endpoint = endpoint or os.environ.get("TIDEMQ_ENDPOINT") or DEFAULT_ENDPOINT
    token = token or os.environ.get("TIDEMQ_TOKEN")
    if not token:
        raise TidemqError(
            "the WebSocket API needs a bearer token: give one, or set TIDEMQ_TOKEN "
            "(`tidemq keys token` makes one)"
        )
    return Connecting(endpoint, token, answer_timeout_s)


class Connecting:
    """What `connect` returns: awaitable, and an async context manager."""

    def __init__(self, endpoint: str, token: str, answer_timeout_s: float) -> None:
        self.endpoint = endpoint
        self.token = token
        self.answer_timeout_s = answer_timeout_s
        self._connection: Connection | None = None

    def __await__(self) -> Generator[Any, None, Connection]:
        return self._open().__await__()

    async def __aenter__(self) -> Connection:
        self._connection = await self._open()
        return self._connection

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._connection is not None:
            await self._connection.close()

    async def _open(self) -> Connection:
        try:
            websocket = await ws_connect(
                websocket_url(self.endpoint),
                additional_headers={"Authorization": f"Bearer {self.token}"},
                max_size=16 * 1024 * 1024,  # a deliver frame of 100 messages of up to 1 MiB
            )
        except InvalidStatus as exc:
            response = exc.response
            raise from_response_body(
                response.status_code,
                bytes(response.body or b""),
                response.headers.get("x-amzn-RequestId"),
            ) from exc
        return Connection(websocket, self.answer_timeout_s)


def _key(queue: str | None, subscription: str | None) -> str:
    """How the connection files a subscription: by its queue, or by its pull subscription."""
    if (queue is None) == (subscription is None):
        raise ValueError("subscribe to a queue or to a pull subscription: give exactly one")
    return f"queue:{queue}" if queue is not None else f"subscription:{subscription}"


def _key_of(frame: Deliver | Unsubscribed) -> str:
    """The key of the subscription a frame is about ("" for a frame naming neither)."""
    if isinstance(frame.queue, str):
        return f"queue:{frame.queue}"
    if isinstance(frame.subscription, str):
        return f"subscription:{frame.subscription}"
    return ""


def _closed(exc: WsConnectionClosed) -> ConnectionClosed:
    close = exc.rcvd or exc.sent
    return ConnectionClosed(close.code if close else None, close.reason if close else "")


def _closed_by_server(websocket: ClientConnection) -> ConnectionClosed:
    return ConnectionClosed(websocket.close_code, websocket.close_reason or "")


__all__ = [
    "ApiError",
    "Connecting",
    "Connection",
    "Delivery",
    "Subscription",
    "connect",
    "websocket_url",
]
