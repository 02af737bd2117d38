"""One request id per request, on every response and in every log line about it.

`RequestIds` wraps the whole application (pure ASGI, so it costs a closure and a header
per request, not a task as Starlette's BaseHTTPMiddleware would). For each HTTP request
and WebSocket upgrade it makes an id (gateway.message_ids.new_request_id), keeps it in
the request's scope, where the protocols find it for the error bodies that name it (SQS
and SNS put `RequestId` in their XML and JSON), sets it as the context of the task
serving the request, where the log formatter finds it (tidemq/logs.py), and adds it to
the response as `x-amzn-RequestId`, the header AWS's services answer with and AWS's SDKs
read, on every API: SQS, SNS, REST, the WebSocket upgrade, health, metrics, the console.

With an access log (`TIDEMQ_ACCESS_LOG`), each HTTP request ends with one INFO record of
logger `tidemq.access`: method, path, status, duration in ms, and the id.
"""

from __future__ import annotations

import contextvars
import logging
import time
from typing import Any

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.message_ids import new_request_id

HEADER = "x-amzn-RequestId"
_HEADER_RAW = HEADER.lower().encode()
_SCOPE_KEY = "tidemq.request_id"

access_log = logging.getLogger("tidemq.access")

# The id of the request the current task serves; None outside requests (background work).
current: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "tidemq_request_id", default=None
)


def request_id(connection: HTTPConnection) -> str:
    """The id of this request (a fresh one for an application built without the
    middleware, as some tests build it)."""
    found = connection.scope.get(_SCOPE_KEY)
    if found is None:
        found = connection.scope[_SCOPE_KEY] = new_request_id()
    return str(found)


class RequestIds:
    def __init__(self, app: ASGIApp, *, log_access: bool = False) -> None:
        self.app = app
        self.log_access = log_access

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        rid = scope[_SCOPE_KEY] = new_request_id()
        current.set(rid)  # this task's context only: uvicorn runs each request in its own
        header = (_HEADER_RAW, rid.encode())
        status = 0

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] in ("http.response.start", "websocket.accept"):
                status = message.get("status", 101)
                message["headers"] = [*message.get("headers", ()), header]
            elif message["type"] == "websocket.http.response.start":  # an upgrade denied
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), header]
            await send(message)

        if not self.log_access:
            await self.app(scope, receive, send_with_id)
            return
        started_s = time.perf_counter()
        try:
            await self.app(scope, receive, send_with_id)
        finally:
            _log_access(scope, status, (time.perf_counter() - started_s) * 1000)


def _log_access(scope: Scope, status: int, duration_ms: float) -> None:
    extra: dict[str, Any] = {
        "method": scope.get("method", "WEBSOCKET"),
        "path": scope.get("path", ""),
        "status": status,
        "duration_ms": round(duration_ms, 3),
    }
    access_log.info(
        "%s %s %d %.1f ms", extra["method"], extra["path"], status, duration_ms, extra=extra
    )
