"""One WebSocket connection, after its upgrade was authenticated: frames in, frames out.

Client frames are carried out one at a time, in the order they arrive, so that a
connection's publishes reach the log in its order (FIFO queues depend on it); pushes of
the subscriptions run beside them. Each operation is the core's (gateway/core/broker.py),
with the native APIs' shapes (gateway/native), so validation, limits and errors are the
same as on the REST API.
The bearer token is checked again every `token_recheck_s`: a revoked or expired one ends
the connection (an `error` frame, then close code 1008). Closing a connection stops its
subscriptions and makes their unsettled messages visible again at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any, Literal

import msgspec
import orjson
from starlette.websockets import WebSocket, WebSocketState

from gateway import metrics
from gateway.auth.bearer import TokenVerifier
from gateway.auth.errors import AuthError
from gateway.core.broker import Broker
from gateway.core.consumables import Consumable, queue_consumable
from gateway.core.errors import CoreError
from gateway.native import conversions
from gateway.native.common import ErrorDetail
from gateway.ws.errors import WsError, from_core, unauthorized
from gateway.ws.frames import (
    OPS,
    Ack,
    ClientFrame,
    CreditSet,
    CursorSet,
    Error,
    Extend,
    Nack,
    Publish,
    Published,
    Seek,
    ServerFrame,
    SetCredit,
    Settled,
    Subscribe,
    Subscribed,
    Unsubscribe,
    Unsubscribed,
)
from gateway.ws.subscription import Source, Subscription

# The frames that name what is consumed: a queue or a pull subscription.
Consuming = Subscribe | SetCredit | Unsubscribe | Ack | Nack | Extend

log = logging.getLogger(__name__)

POLICY_VIOLATION = 1008  # RFC 6455: the close code for a refused principal
_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(ClientFrame)


class Session:
    def __init__(
        self,
        websocket: WebSocket,
        broker: Broker,
        account_id: str,
        *,
        token: str,
        verifier: TokenVerifier,
        token_recheck_s: float,
    ) -> None:
        self._websocket = websocket
        self._broker = broker
        self._account_id = account_id
        self._token = token
        self._verifier = verifier
        self._token_recheck_s = token_recheck_s
        self._subscriptions: dict[Source, Subscription] = {}
        self._send_lock = asyncio.Lock()
        self._closed = False

    async def run(self) -> None:
        watchdog = asyncio.create_task(self._watch_token(), name="ws-token-watchdog")
        try:
            while True:
                message = await self._websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                raw = message.get("text")
                await self._handle(raw.encode() if raw is not None else message.get("bytes"))
        finally:
            self._closed = True
            watchdog.cancel()
            await asyncio.gather(watchdog, return_exceptions=True)
            for subscription in self._subscriptions.values():
                await subscription.stop()

    async def send(self, frame: ServerFrame) -> None:
        """Sends a frame; one at a time, since pushes and answers come from several tasks.
        Frames for a connection that has gone are dropped."""
        async with self._send_lock:
            if self._closed or self._websocket.application_state != WebSocketState.CONNECTED:
                return
            try:
                await self._websocket.send_text(_encoder.encode(frame).decode())
            except Exception:  # the peer went away mid-send; the reader sees the disconnect
                self._closed = True

    async def _handle(self, raw: bytes | None) -> None:
        started_s = time.perf_counter()
        try:
            frame = _decode(raw or b"")
        except WsError as exc:
            await self.send(_error(exc, *_request_id_and_op(raw)))
            metrics.observe_request("ws", metrics.UNKNOWN_ACTION, started_s, exc.http_status)
            return
        op = str(frame.__struct_config__.tag)
        reply: ServerFrame | None
        status = 200
        try:
            reply = await self._dispatch(frame)
        except WsError as exc:
            reply, status = _error(exc, frame.id, op), exc.http_status
        except CoreError as exc:
            error = from_core(exc)
            reply, status = _error(error, frame.id, op), error.http_status
        except Exception:
            log.exception("WebSocket frame %s (%s) failed", frame.id, op)
            status = 500
            reply = _error(WsError("InternalError", "Internal error.", status), frame.id, op)
        if reply is not None:
            await self.send(reply)
        metrics.observe_request("ws", op, started_s, status)

    async def _dispatch(self, frame: ClientFrame) -> ServerFrame | None:
        """The answer to the frame; None when the handler has sent it itself."""
        match frame:
            case Publish():
                return await self._publish(frame)
            case Ack() | Nack() | Extend():
                return await self._settle_frame(frame)
            case Subscribe():
                await self._subscribe(frame)
                return None
            case SetCredit():
                source = _source(frame)
                self._subscription(source).set_credit(frame.credit)
                return CreditSet(
                    id=frame.id,
                    queue=source.queue,
                    subscription=source.subscription,
                    credit=frame.credit,
                )
            case Unsubscribe():
                source = _source(frame)
                subscription = self._subscription(source)
                del self._subscriptions[source]
                await subscription.stop()
                return Unsubscribed(
                    id=frame.id, queue=source.queue, subscription=source.subscription
                )
            case Seek():
                return await self._seek(frame)
        raise AssertionError(f"unhandled frame {frame!r}")

    async def _publish(self, frame: Publish) -> Published:
        """To a queue, as the REST API's batch send; to a topic, as its batch publish."""
        conversions.check_batch_size(len(frame.messages))
        if (frame.queue is None) == (frame.topic is None):
            raise _one_of("queue", "topic", frame.queue is None)
        if frame.queue is not None:
            queue = await self._broker.get_queue(self._account_id, frame.queue)
            sent = await self._broker.send_batch(queue, frame.messages, conversions.FIELD_NAMES)
            return Published(id=frame.id, queue=frame.queue, results=conversions.send_results(sent))
        assert frame.topic is not None
        topic = await self._broker.topics.own_topic(self._account_id, frame.topic)
        published = await self._broker.topics.publish_drafts(
            topic, frame.messages, conversions.FIELD_NAMES
        )
        return Published(
            id=frame.id, topic=frame.topic, results=conversions.publish_results(published)
        )

    async def _settle_frame(self, frame: Ack | Nack | Extend) -> Settled:
        """Ack deletes; nack and extend change the visibility timeout."""
        handles = frame.receipt_handles
        conversions.check_batch_size(len(handles))
        source = _source(frame)
        consumed = await self._consumable(source)
        op: Literal["ack", "nack", "extend"]
        extend_ms = None
        if isinstance(frame, Ack):
            op, errors = "ack", await self._broker.delete_messages(consumed, handles)
        else:
            if isinstance(frame, Nack):
                op, seconds = "nack", frame.delay_seconds
            else:
                op, seconds = "extend", frame.visibility_timeout
                extend_ms = seconds * 1000
            changes = [(handle, seconds * 1000) for handle in handles]
            errors = await self._broker.change_visibility(consumed, changes)
        results = conversions.entry_results(errors)
        subscription = self._subscriptions.get(source)
        if subscription is not None:
            done = [h for h, r in zip(handles, results.results, strict=True) if r.error is None]
            if extend_ms is None:
                subscription.settle(done)
            else:
                subscription.extend(done, extend_ms)
        return Settled(
            id=frame.id,
            op=op,
            queue=source.queue,
            subscription=source.subscription,
            results=results.results,
        )

    async def _subscribe(self, frame: Subscribe) -> None:
        source = _source(frame)
        existing = self._subscriptions.get(source)
        if existing is not None and not existing.ended:
            raise WsError(
                "AlreadySubscribed",
                f"This connection is already subscribed to {source}; "
                "send `credit` to change its credit.",
            )
        await self._consumable(source)  # not there, or not pulled: before anything starts
        visibility_timeout_ms = (
            None if frame.visibility_timeout is None else frame.visibility_timeout * 1000
        )
        subscription = Subscription(
            self._broker,
            source,
            lambda: self._consumable(source),
            credit=frame.credit,
            visibility_timeout_ms=visibility_timeout_ms,
            send=self.send,
        )
        self._subscriptions[source] = subscription
        # Answered before the first push, which starts only after this frame is sent.
        await self.send(
            Subscribed(
                id=frame.id,
                queue=source.queue,
                subscription=source.subscription,
                credit=frame.credit,
            )
        )
        subscription.start()

    async def _seek(self, frame: Seek) -> CursorSet:
        subscription = await self._broker.topics.own_subscription(
            self._account_id, frame.subscription
        )
        sought = await self._broker.pulls.seek(
            subscription, offset=frame.offset, timestamp_ms=frame.timestamp
        )
        pushing = self._subscriptions.get(Source(subscription=frame.subscription))
        if pushing is not None:
            pushing.forget_unsettled()
        return CursorSet(
            id=frame.id,
            subscription=frame.subscription,
            offset=sought.offset,
            end_offset=sought.end_offset,
        )

    def _subscription(self, source: Source) -> Subscription:
        subscription = self._subscriptions.get(source)
        if subscription is None or subscription.ended:
            raise WsError("NotSubscribed", f"This connection has no subscription to {source}.")
        return subscription

    async def _consumable(self, source: Source) -> Consumable:
        """What the source consumes: QueueDoesNotExist or NotFound if it is not there, and
        InvalidParameterValue for a subscription that is not pulled."""
        if source.queue is not None:
            return queue_consumable(await self._broker.get_queue(self._account_id, source.queue))
        assert source.subscription is not None
        subscription = await self._broker.topics.own_subscription(
            self._account_id, source.subscription
        )
        return self._broker.pulls.consumable(subscription)

    async def _watch_token(self) -> None:
        while True:
            await asyncio.sleep(self._token_recheck_s)
            try:
                principal = await self._verifier.principal(self._token)
                if principal.account_id != self._account_id:
                    raise unauthorized("InvalidClientTokenId", "The bearer token changed account.")
            except (AuthError, WsError) as exc:
                error = exc if isinstance(exc, WsError) else from_core(exc)
                log.info("WebSocket closed (%s): %s", error.code, error.message)
                await self.send(_error(error, None, None))
                await self._close(POLICY_VIOLATION, error.code)
                return
            except CoreError:
                # Redis unreachable: keep the connection; every operation fails meanwhile.
                log.warning("could not re-check a WebSocket's bearer token", exc_info=True)

    async def _close(self, code: int, reason: str) -> None:
        async with self._send_lock:
            if self._closed or self._websocket.application_state != WebSocketState.CONNECTED:
                return
            self._closed = True
            # The peer may have gone already: then there is nothing left to close.
            with contextlib.suppress(Exception):
                await self._websocket.close(code, reason)


def _source(frame: Consuming) -> Source:
    """What the frame consumes: its queue or its subscription, exactly one of the two."""
    if (frame.queue is None) == (frame.subscription is None):
        raise _one_of("queue", "subscription", frame.queue is None)
    return Source(queue=frame.queue, subscription=frame.subscription)


def _one_of(first: str, second: str, neither: bool) -> WsError:
    if neither:
        return WsError("MissingParameter", f"The frame needs a `{first}` or a `{second}`.")
    return WsError(
        "InvalidParameterValue", f"The frame names a `{first}` and a `{second}`: give one."
    )


def _decode(raw: bytes) -> ClientFrame:
    try:
        frame: ClientFrame = _decoder.decode(raw)
    except msgspec.ValidationError as exc:
        message = str(exc)
        missing = message.startswith("Object missing required field")
        if message.endswith("`$.op`") or message.endswith("field `op`"):
            message = f"`op` must be one of {', '.join(OPS)}."
        code = "MissingParameter" if missing else "InvalidParameterValue"
        raise WsError(code, f"Invalid frame: {message}") from exc
    except msgspec.DecodeError as exc:
        raise WsError("SerializationException", f"Malformed JSON frame: {exc}") from exc
    return frame


def _error(exc: WsError, request_id: str | None, op: str | None) -> Error:
    return Error(id=request_id, op=op, error=ErrorDetail(exc.code, exc.message))


def _request_id_and_op(raw: bytes | None) -> tuple[str | None, str | None]:
    """A frame's `id` and `op`, for the answer to a frame too malformed to decode."""
    try:
        parsed: Any = orjson.loads(raw or b"")
    except orjson.JSONDecodeError:
        return None, None
    if not isinstance(parsed, dict):
        return None, None
    request_id, op = parsed.get("id"), parsed.get("op")
    return (
        request_id if isinstance(request_id, str) and len(request_id) <= 128 else None,
        op if isinstance(op, str) and op in OPS else None,
    )
