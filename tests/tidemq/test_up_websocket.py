"""`tidemq up`'s WebSocket endpoint as the SDK's client meets it: the `websockets` client
offers permessage-deflate, the server declines it (compressing each push cost the event
loop a fifth of its time under load; docs/performance.md), and frames flow uncompressed."""

from __future__ import annotations

import json
from pathlib import Path

from websockets.asyncio.client import connect

from tests.conftest import TidemqUp
from tests.sdk.conftest import make_token


async def test_permessage_deflate_is_offered_and_declined(
    tidemq_up: TidemqUp, tmp_path: Path
) -> None:
    data_dir = tmp_path / "data"
    up = tidemq_up(data_dir=data_dir)
    up.sqs_client().create_queue(QueueName="plain")
    token = make_token(data_dir)
    url = up.endpoint.replace("http://", "ws://", 1) + "/v1/ws"
    headers = {"Authorization": f"Bearer {token}"}
    async with connect(url, additional_headers=headers) as ws:
        assert ws.request is not None
        assert ws.response is not None
        assert "permessage-deflate" in ws.request.headers["Sec-WebSocket-Extensions"]
        assert ws.response.headers.get("Sec-WebSocket-Extensions") is None
        assert ws.protocol.extensions == []
        await ws.send(json.dumps({"op": "subscribe", "queue": "plain", "id": "s"}))
        assert json.loads(await ws.recv())["type"] == "subscribed"
        publish = {"op": "publish", "queue": "plain", "messages": [{"body": "x" * 256}] * 3}
        await ws.send(json.dumps({**publish, "id": "p"}))
        kinds: dict[str, int] = {}
        while kinds.get("deliver_messages", 0) < 3:
            frame = json.loads(await ws.recv())
            kinds[frame["type"]] = kinds.get(frame["type"], 0) + 1
            if frame["type"] == "deliver":
                kinds["deliver_messages"] = kinds.get("deliver_messages", 0) + len(
                    frame["messages"]
                )
        assert kinds["deliver_messages"] == 3
