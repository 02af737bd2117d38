"""Fixtures of the REST API tests: bearer tokens and httpx clients on the `gateway` fixture.

- `make_token(account_id=..., ttl_ms=..., clock=...)`: a bearer token registered in the
  gateway's control plane (with `clock`, it was issued at that clock's time, so a token
  that has already expired needs no waiting).
- `rest`: an httpx client of the gateway authenticated with a token of the default account.
- `rest_for(account_id)`: a client with a new token of another account.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

import httpx
import pytest

from control_plane.bearer_tokens import BearerTokens, IssuedToken
from control_plane.clock import Clock, SystemClock
from control_plane.redis_client import open_redis
from tests.conftest import TEST_ACCOUNT_ID, RunningGateway

DAY_MS = 24 * 3600 * 1000

MakeToken = Callable[..., str]
RestFor = Callable[[str], httpx.Client]


async def issue_token(
    redis_url: str, account_id: str, ttl_ms: int, clock: Clock | None = None
) -> IssuedToken:
    redis = open_redis(redis_url)
    try:
        return await BearerTokens(redis, clock or SystemClock()).create(account_id, ttl_ms=ttl_ms)
    finally:
        await redis.aclose()


def rest_client(url: str, token: str) -> httpx.Client:
    return httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30)


@pytest.fixture
def make_token(gateway: RunningGateway) -> MakeToken:
    def make(
        account_id: str = TEST_ACCOUNT_ID, ttl_ms: int = DAY_MS, clock: Clock | None = None
    ) -> str:
        return asyncio.run(issue_token(gateway.redis_url, account_id, ttl_ms, clock)).token

    return make


@pytest.fixture
def rest(gateway: RunningGateway, make_token: MakeToken) -> Iterator[httpx.Client]:
    with rest_client(gateway.url, make_token()) as client:
        yield client


@pytest.fixture
def rest_for(gateway: RunningGateway, make_token: MakeToken) -> Iterator[RestFor]:
    clients: list[httpx.Client] = []

    def client(account_id: str) -> httpx.Client:
        clients.append(rest_client(gateway.url, make_token(account_id)))
        return clients[-1]

    yield client
    for opened in clients:
        opened.close()
