"""REST authentication: a bearer token or SigV4; anything else a 401 that touches nothing;
each account sees only its own queues."""

from __future__ import annotations

import asyncio
import hashlib

import httpx
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from control_plane.bearer_tokens import BearerTokens
from control_plane.clock import ManualClock, SystemClock
from control_plane.redis_client import open_redis
from tests.conftest import (
    REGION,
    TEST_ACCESS_KEY_ID,
    TEST_SECRET_ACCESS_KEY,
    MakeAccessKey,
    RunningGateway,
)
from tests.gateway.rest.conftest import DAY_MS, MakeToken, RestFor, rest_client

OTHER_ACCOUNT = "111122223333"


def _signed(
    gateway: RunningGateway,
    method: str,
    path: str,
    body: bytes = b"",
    *,
    key_id: str = TEST_ACCESS_KEY_ID,
    secret: str = TEST_SECRET_ACCESS_KEY,
    service: str = "sqs",
) -> httpx.Response:
    request = AWSRequest(method=method, url=gateway.url + path, data=body)
    if body:
        request.headers["Content-Type"] = "application/json"
    SigV4Auth(Credentials(key_id, secret), service, REGION).add_auth(request)
    return httpx.request(method, gateway.url + path, content=body, headers=dict(request.headers))


def _refused(response: httpx.Response, code: str) -> str:
    assert response.status_code == 401, response.text
    assert response.headers["www-authenticate"] == 'Bearer realm="tidemq"'
    assert response.json()["error"]["code"] == code
    return str(response.json()["error"]["message"])


def _queue_names(rest: httpx.Client) -> list[str]:
    return [q["name"] for q in rest.get("/v1/queues").json()["queues"]]


def _create(client: httpx.Client, name: str) -> httpx.Response:
    return client.post("/v1/queues", json={"name": name})


def test_no_credentials_are_refused_and_create_nothing(
    gateway: RunningGateway, rest: httpx.Client
) -> None:
    response = httpx.post(f"{gateway.url}/v1/queues", json={"name": "orders"})
    assert "Bearer" in _refused(response, "MissingAuthenticationToken")
    assert _queue_names(rest) == []


@pytest.mark.parametrize("token", ["nope", "tqb_" + "A" * 43, "tqb_"])
def test_an_unknown_bearer_token_is_refused(
    gateway: RunningGateway, rest: httpx.Client, token: str
) -> None:
    response = httpx.post(
        f"{gateway.url}/v1/queues",
        json={"name": "orders"},
        headers={"Authorization": f"Bearer {token}"},
    )
    _refused(response, "InvalidClientTokenId")
    assert _queue_names(rest) == []


def test_an_expired_token_is_refused(
    gateway: RunningGateway, rest: httpx.Client, make_token: MakeToken
) -> None:
    issued_two_days_ago = ManualClock(SystemClock().now_ms() - 2 * DAY_MS)
    token = make_token(ttl_ms=DAY_MS, clock=issued_two_days_ago)
    with rest_client(gateway.url, token) as expired:
        assert "expired" in _refused(_create(expired, "orders"), "ExpiredToken")
    assert _queue_names(rest) == []


def test_a_revoked_token_is_refused_from_the_next_request(
    gateway: RunningGateway, make_token: MakeToken
) -> None:
    token = make_token()
    with rest_client(gateway.url, token) as client:
        assert _create(client, "orders").status_code == 201

        async def revoke() -> None:
            redis = open_redis(gateway.redis_url)
            try:
                assert await BearerTokens(redis, SystemClock()).revoke(token) is not None
            finally:
                await redis.aclose()

        asyncio.run(revoke())
        _refused(client.get("/v1/queues"), "InvalidClientTokenId")
        _refused(_create(client, "other"), "InvalidClientTokenId")


def test_sigv4_works_on_rest_as_on_sqs(gateway: RunningGateway, rest: httpx.Client) -> None:
    created = _signed(gateway, "POST", "/v1/queues", b'{"name": "signed"}')
    assert created.status_code == 201, created.text
    listed = _signed(gateway, "GET", "/v1/queues?prefix=sig&limit=5")
    assert [q["name"] for q in listed.json()["queues"]] == ["signed"]
    assert _signed(gateway, "DELETE", "/v1/queues/signed").status_code == 204


def test_bad_signatures_are_refused_and_change_nothing(
    gateway: RunningGateway, rest: httpx.Client, make_access_key: MakeAccessKey
) -> None:
    wrong_secret = _signed(gateway, "POST", "/v1/queues", b'{"name": "x"}', secret="wrong")
    _refused(wrong_secret, "SignatureDoesNotMatch")
    unknown_key = _signed(gateway, "POST", "/v1/queues", b'{"name": "x"}', key_id="UNKNOWN")
    _refused(unknown_key, "InvalidClientTokenId")
    other_service = _signed(gateway, "POST", "/v1/queues", b'{"name": "x"}', service="sns")
    _refused(other_service, "SignatureDoesNotMatch")
    garbled = httpx.get(f"{gateway.url}/v1/queues", headers={"Authorization": "Basic abc"})
    _refused(garbled, "IncompleteSignature")
    assert _queue_names(rest) == []


def test_accounts_see_only_their_own_queues(rest: httpx.Client, rest_for: RestFor) -> None:
    assert _create(rest, "orders").status_code == 201
    rest.post("/v1/queues/orders/messages", json={"body": "mine"})
    other = rest_for(OTHER_ACCOUNT)
    assert _queue_names(other) == []
    for method, path, body in [
        ("GET", "/v1/queues/orders", None),
        ("GET", "/v1/queues/orders/stats", None),
        ("POST", "/v1/queues/orders/messages", {"body": "x"}),
        ("POST", "/v1/queues/orders/messages/receive", {}),
        ("POST", "/v1/queues/orders/purge", None),
        ("DELETE", "/v1/queues/orders", None),
    ]:
        response = other.request(method, path, json=body)
        assert response.status_code == 404, (method, path, response.text)
        assert response.json()["error"]["code"] == "QueueDoesNotExist"
    assert _create(other, "orders").status_code == 201  # its own, apart from ours
    assert rest.get("/v1/queues/orders/stats").json()["visible"] == 1
    assert other.get("/v1/queues/orders/stats").json()["visible"] == 0


def test_health_openapi_and_docs_need_no_credentials(gateway: RunningGateway) -> None:
    for path in ("/healthz", "/readyz", "/openapi.json", "/docs"):
        assert httpx.get(gateway.url + path).status_code == 200, path


def test_token_store_lists_and_revokes_by_id(gateway: RunningGateway) -> None:
    async def scenario() -> None:
        redis = open_redis(gateway.redis_url)
        try:
            tokens = BearerTokens(redis, SystemClock())
            issued = await tokens.create(OTHER_ACCOUNT, ttl_ms=DAY_MS)
            assert issued.token.startswith("tqb_")
            stored = await redis.hgetall(f"tq:{{auth}}:token:{_sha256(issued.token)}")
            assert issued.token.encode() not in b"".join(stored.values())
            [listed] = await tokens.list_tokens(OTHER_ACCOUNT)
            assert listed == issued.record
            assert await tokens.revoke(listed.token_id) == issued.record
            assert await tokens.list_tokens() == []
            assert await tokens.find(issued.token) is None
            assert await tokens.revoke(listed.token_id) is None
        finally:
            await redis.aclose()

    asyncio.run(scenario())


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
