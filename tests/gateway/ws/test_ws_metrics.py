"""The WebSocket gauges of `/metrics` follow a real connection: opened, subscribed with
credit, messages pushed and acked, credit changed, closed. Read as differences from
before the connection (the gauges are the process's)."""

from __future__ import annotations

import asyncio
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import RunningGateway
from tests.gateway.ws.conftest import ConnectWs, NewToken

GAUGES = (
    "tidemq_websocket_connections",
    "tidemq_websocket_subscriptions",
    "tidemq_websocket_credit_messages",
    "tidemq_websocket_unsettled_messages",
)


async def _gauges(gateway: RunningGateway) -> dict[str, float]:
    text = await asyncio.to_thread(_scrape, gateway.url)
    found = {
        sample.name: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name in GAUGES
    }
    return {name: found[name] for name in GAUGES}


def _scrape(url: str) -> str:
    with urllib.request.urlopen(url + "/metrics", timeout=30) as response:
        return str(response.read().decode())


async def _changed(gateway: RunningGateway, before: dict[str, float]) -> list[float]:
    now = await _gauges(gateway)
    return [now[name] - before[name] for name in GAUGES]


async def test_the_gauges_follow_a_connection(
    gateway: RunningGateway, connect_ws: ConnectWs, new_token: NewToken
) -> None:
    gateway.sqs_client().create_queue(QueueName="watched")
    before = await _gauges(gateway)
    async with connect_ws(await new_token()) as client:
        assert await _changed(gateway, before) == [1, 0, 0, 0]
        await client.request({"op": "subscribe", "queue": "watched", "credit": 5})
        assert await _changed(gateway, before) == [1, 1, 5, 0]
        answer = await client.request(
            {"op": "publish", "queue": "watched", "messages": [{"body": "a"}, {"body": "b"}]}
        )
        assert answer["type"] == "published"
        first, second = await client.deliveries(2)
        assert await _changed(gateway, before) == [1, 1, 5, 2]
        await client.request(
            {"op": "ack", "queue": "watched", "receipt_handles": [first["receipt_handle"]]}
        )
        await client.request({"op": "credit", "queue": "watched", "credit": 8})
        assert await _changed(gateway, before) == [1, 1, 8, 1]
    # Closed: what the connection added is taken back (its unsettled message released).
    deadline = asyncio.get_running_loop().time() + 10
    while await _changed(gateway, before) != [0, 0, 0, 0]:
        assert asyncio.get_running_loop().time() < deadline, await _changed(gateway, before)
        await asyncio.sleep(0.05)
    assert second["body"] == "b"
