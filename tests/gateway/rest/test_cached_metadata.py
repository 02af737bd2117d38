"""Queue metadata and bearer tokens are cached in the gateway, and a change made
anywhere else (another gateway, a command-line tool) applies from the next request on."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from control_plane.bearer_tokens import BearerTokens
from control_plane.clock import SystemClock
from control_plane.queues import QueueStore
from control_plane.redis_client import RedisClient, open_redis
from tests.conftest import TEST_ACCOUNT_ID, RunningGateway
from tests.gateway.rest.conftest import MakeToken, rest_client

BODY = {"body": "hello"}


def _elsewhere(redis_url: str, change: Callable[[RedisClient], Awaitable[Any]]) -> None:
    """Runs `change` on a connection of its own, as another gateway would."""

    async def run() -> None:
        redis = open_redis(redis_url)
        try:
            await change(redis)
        finally:
            await redis.aclose()

    asyncio.run(run())


def _create(rest: httpx.Client, name: str, **attributes: str) -> str:
    response = rest.post("/v1/queues", json={"name": name, "attributes": attributes})
    assert response.status_code == 201, response.text
    return f"/v1/queues/{name}"


def test_a_queue_deleted_elsewhere_is_gone_at_the_next_send(
    gateway: RunningGateway, rest: httpx.Client
) -> None:
    path = _create(rest, "orders")
    assert rest.post(f"{path}/messages", json=BODY).status_code == 201
    _elsewhere(
        gateway.redis_url,
        lambda redis: QueueStore(redis, SystemClock()).delete(TEST_ACCOUNT_ID, "orders"),
    )
    response = rest.post(f"{path}/messages", json=BODY)
    assert response.status_code == 404, response.text
    assert response.json()["error"]["code"] == "QueueDoesNotExist"
    sqs = gateway.sqs_client()
    queue_url = f"{gateway.url}/{TEST_ACCOUNT_ID}/orders"
    try:
        sqs.send_message(QueueUrl=queue_url, MessageBody="hello")
    except sqs.exceptions.QueueDoesNotExist:
        pass
    else:
        raise AssertionError("SendMessage to a deleted queue succeeded")


def test_a_visibility_timeout_changed_elsewhere_is_used_by_the_next_receive(
    gateway: RunningGateway, rest: httpx.Client
) -> None:
    path = _create(rest, "orders", VisibilityTimeout="600")
    assert rest.post(f"{path}/messages", json=BODY).status_code == 201
    _elsewhere(
        gateway.redis_url,
        lambda redis: QueueStore(redis, SystemClock()).set_attributes(
            TEST_ACCOUNT_ID, "orders", {"VisibilityTimeout": "0"}
        ),
    )
    for _ in range(2):  # visible again at once after each receive: a timeout of 0
        received = rest.post(f"{path}/messages/receive", json={}).json()["messages"]
        assert [m["body"] for m in received] == ["hello"]


def test_a_token_revoked_elsewhere_is_refused_at_the_next_request(
    gateway: RunningGateway, make_token: MakeToken
) -> None:
    token = make_token()
    with rest_client(gateway.url, token) as client:
        assert client.get("/v1/queues").status_code == 200
        assert client.get("/v1/queues").status_code == 200  # served from the cache
        _elsewhere(
            gateway.redis_url, lambda redis: BearerTokens(redis, SystemClock()).revoke(token)
        )
        response = client.get("/v1/queues")
    assert response.status_code == 401, response.text
    assert response.json()["error"]["code"] == "InvalidClientTokenId"
