"""Bursts are absorbed: a thousand concurrent sends and five thousand concurrent long polls
all succeed (a command waits for a Redis connection rather than failing, and a long poll
holds none while it waits)."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from tests.conftest import RunningGateway
from tests.gateway.rest.conftest import MakeToken


async def _burst(url: str, token: str, sends: int, polls: int) -> tuple[list[int], list[int]]:
    headers = {"Authorization": f"Bearer {token}"}
    connector = aiohttp.TCPConnector(limit=0)  # every request on its own connection
    timeout = aiohttp.ClientTimeout(total=120)
    async with aiohttp.ClientSession(
        url, headers=headers, connector=connector, timeout=timeout
    ) as session:

        async def post(path: str, body: dict[str, object]) -> int:
            async with session.post(path, json=body) as response:
                await response.read()
                return response.status

        send_statuses = await asyncio.gather(
            *(post("/v1/queues/burst/messages", {"body": f"m{i}"}) for i in range(sends))
        )
        poll_statuses = await asyncio.gather(
            *(post("/v1/queues/idle/messages/receive", {"wait_seconds": 2}) for _ in range(polls))
        )
    return list(send_statuses), list(poll_statuses)


@pytest.mark.slow
@pytest.mark.alone  # the acceptance figures of a 2-core machine, not of half of one
def test_a_thousand_sends_and_five_thousand_long_polls_at_once(
    gateway: RunningGateway, make_token: MakeToken
) -> None:
    token = make_token()
    sqs = gateway.sqs_client()
    sqs.create_queue(QueueName="burst")
    sqs.create_queue(QueueName="idle")
    sends, polls = asyncio.run(_burst(gateway.url, token, sends=1_000, polls=5_000))
    assert sends == [201] * 1_000
    assert polls == [200] * 5_000
    attributes = sqs.get_queue_attributes(
        QueueUrl="burst", AttributeNames=["ApproximateNumberOfMessages"]
    )["Attributes"]
    assert attributes["ApproximateNumberOfMessages"] == "1000"
