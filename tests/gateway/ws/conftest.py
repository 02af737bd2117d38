"""Fixtures of the WebSocket API tests: real `websockets` clients of the `gateway` fixture.

- `await new_token(account_id=..., ttl_ms=..., clock=...)`: a bearer token (as for REST).
- `ws_url`: the gateway's ws://.../v1/ws.
- `connect_ws(token)`: an async context manager yielding a `WsClient`, whose every
  received frame is checked against the AsyncAPI document's schema of its `type`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import jsonschema
import pytest
from websockets.asyncio.client import ClientConnection, connect

from control_plane.clock import Clock
from gateway.ws.asyncapi import document
from gateway.ws.frames import SERVER_FRAMES
from tests.conftest import TEST_ACCOUNT_ID, RunningGateway
from tests.gateway.rest.conftest import DAY_MS, issue_token

FRAME_TIMEOUT_S = 10.0

ConnectWs = Callable[[str], AbstractAsyncContextManager["WsClient"]]
NewToken = Callable[..., Awaitable[str]]


class WsClient:
    def __init__(self, connection: ClientConnection) -> None:
        self.connection = connection
        self.pushed: list[dict[str, Any]] = []
        self._next_id = 0

    async def send(self, frame: dict[str, Any]) -> None:
        await self.connection.send(json.dumps(frame))

    async def recv(self, timeout_s: float = FRAME_TIMEOUT_S) -> dict[str, Any]:
        raw = await asyncio.wait_for(self.connection.recv(), timeout_s)
        frame: dict[str, Any] = json.loads(raw)
        check_against_document(frame)
        return frame

    async def request(self, frame: dict[str, Any]) -> dict[str, Any]:
        """Sends the frame with a new id; the answer carrying that id (pushes that come
        first are kept in `pushed`)."""
        self._next_id += 1
        request_id = f"r{self._next_id}"
        await self.send({**frame, "id": request_id})
        while True:
            answer = await self.recv()
            if answer.get("id") == request_id:
                return answer
            self.pushed.append(answer)

    async def deliveries(self, count: int) -> list[dict[str, Any]]:
        """The next `count` pushed messages (from `deliver` frames)."""
        messages: list[dict[str, Any]] = []
        while len(messages) < count:
            frame = self.pushed.pop(0) if self.pushed else await self.recv()
            assert frame["type"] == "deliver", frame
            messages.extend(frame["messages"])
        assert len(messages) == count, messages
        return messages

    async def nothing_pushed(self, for_s: float) -> None:
        """Asserts that no frame arrives within `for_s` seconds."""
        assert not self.pushed, self.pushed
        try:
            frame = await self.recv(timeout_s=for_s)
        except TimeoutError:
            return
        pytest.fail(f"unexpected frame {frame}")


def _validators() -> dict[str, jsonschema.protocols.Validator]:
    components = {"components": document()["components"]}
    validators = {}
    for frame in SERVER_FRAMES:
        schema = {**components, "$ref": f"#/components/schemas/{frame.__name__}"}
        validators[str(frame.__struct_config__.tag)] = jsonschema.Draft7Validator(schema)
    return validators


_VALIDATORS = _validators()


def check_against_document(frame: dict[str, Any]) -> None:
    assert frame.get("type") in _VALIDATORS, frame
    _VALIDATORS[frame["type"]].validate(frame)


@pytest.fixture
def new_token(gateway: RunningGateway) -> NewToken:
    async def make(
        account_id: str = TEST_ACCOUNT_ID, ttl_ms: int = DAY_MS, clock: Clock | None = None
    ) -> str:
        return (await issue_token(gateway.redis_url, account_id, ttl_ms, clock)).token

    return make


@pytest.fixture
def ws_url(gateway: RunningGateway) -> str:
    return gateway.url.replace("http://", "ws://") + "/v1/ws"


@pytest.fixture
def connect_ws(ws_url: str) -> ConnectWs:
    @asynccontextmanager
    async def connected(token: str) -> AsyncIterator[WsClient]:
        headers = {"Authorization": f"Bearer {token}"}
        async with connect(ws_url, additional_headers=headers) as connection:
            yield WsClient(connection)

    return connected
