"""Long polls on an idle queue share one empty look (control_plane/wakeups.py, `mark_idle`):
a crowd of them arriving, and timing out, makes a few claims, not two each; a send still
reaches a waiting poll at once, and a poll begun after it finds the message."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest

from control_plane.redis_client import open_redis
from tests.conftest import RunningGateway
from tests.gateway.rest.conftest import MakeToken
from tests.redis_cluster import command_calls

POLLS = 300


@dataclass(frozen=True)
class IdleQueue:
    token: str  # a bearer token of its account
    url: str  # its queue URL
    sqs: Any  # a boto3 SQS client of the gateway


@pytest.fixture
def idle(gateway: RunningGateway, make_token: MakeToken) -> IdleQueue:
    """The queue `idle`, empty."""
    sqs = gateway.sqs_client()
    return IdleQueue(make_token(), sqs.create_queue(QueueName="idle")["QueueUrl"], sqs)


async def _calls(redis_url: str, command: str) -> int:
    """How many times Redis ran `command` so far."""
    redis = open_redis(redis_url)
    try:
        return await command_calls(redis, command)
    finally:
        await redis.aclose()


async def _polls(url: str, token: str, polls: int, wait_seconds: int) -> list[list[object]]:
    """`polls` receives on `idle` at once, each on its own connection: their messages."""
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(
        url,
        headers={"Authorization": f"Bearer {token}"},
        connector=connector,
        timeout=aiohttp.ClientTimeout(total=10),
    ) as session:

        async def poll() -> list[object]:
            body = {"max_messages": 1, "wait_seconds": wait_seconds}
            async with session.post("/v1/queues/idle/messages/receive", json=body) as response:
                assert response.status == 200, await response.text()
                messages: list[object] = (await response.json())["messages"]
                return messages

        return list(await asyncio.gather(*(poll() for _ in range(polls))))


def test_a_crowd_of_long_polls_on_an_idle_queue_looks_a_few_times(
    gateway: RunningGateway, idle: IdleQueue
) -> None:
    before = asyncio.run(_calls(gateway.redis_url, "evalsha"))
    answers = asyncio.run(_polls(gateway.url, idle.token, POLLS, wait_seconds=1))
    assert answers == [[]] * POLLS
    # Without the shared look every poll claims as it begins and again as it times out
    # (2 * POLLS scripts). With it, only polls that begin, or time out, before any look
    # has come back look themselves: about as many as a caller may run at once (32,
    # gateway/admission.py) or the deadlines end in one turn (64), each time.
    claims = asyncio.run(_calls(gateway.redis_url, "evalsha")) - before
    assert claims < POLLS // 2, claims


def test_a_send_reaches_polls_waiting_under_a_shared_look_and_those_begun_after(
    gateway: RunningGateway, idle: IdleQueue
) -> None:

    async def scenario() -> tuple[list[list[object]], list[list[object]]]:
        # Waiting up to 20 s, but answered within the client's 10 s or failed: woken.
        waiting = asyncio.create_task(_polls(gateway.url, idle.token, 2, wait_seconds=20))
        await asyncio.sleep(1.0)  # both polls are waiting, the queue is marked idle
        entries = [{"Id": str(i), "MessageBody": f"m{i}"} for i in range(3)]
        await asyncio.to_thread(idle.sqs.send_message_batch, QueueUrl=idle.url, Entries=entries)
        # Begun right after the send, within the mark's second: it looks, as the waiting
        # polls take one message each.
        after = await _polls(gateway.url, idle.token, 1, wait_seconds=0)
        return await waiting, after

    waited, after = asyncio.run(scenario())
    assert [len(answer) for answer in waited] == [1, 1]
    assert len(after[0]) == 1
    bodies = [m["body"] for answer in (*waited, *after) for m in answer]  # type: ignore[index]
    assert sorted(bodies) == ["m0", "m1", "m2"]


def test_a_send_to_a_crowd_of_waiting_polls_is_looked_for_by_a_few(
    gateway: RunningGateway, idle: IdleQueue
) -> None:

    async def scenario() -> tuple[list[list[object]], int]:
        waiting = asyncio.create_task(_polls(gateway.url, idle.token, POLLS, wait_seconds=3))
        await asyncio.sleep(1.0)  # all waiting, the queue marked idle
        before = await _calls(gateway.redis_url, "evalsha")
        await asyncio.to_thread(idle.sqs.send_message, QueueUrl=idle.url, MessageBody="one")
        await asyncio.sleep(0.5)  # the woken polls have looked, and waited again
        claims = await _calls(gateway.redis_url, "evalsha") - before
        return await waiting, claims

    answers, claims = asyncio.run(scenario())
    assert sorted(len(answer) for answer in answers) == [0] * (POLLS - 1) + [1]
    # The send woke every poll; one of them looked, and took the message (all there
    # was: the claim said so), and the others saw that it had. Without the shared look
    # each woken poll claims: POLLS scripts.
    assert claims < 10, claims
