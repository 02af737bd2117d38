"""The WebSocket upgrade refuses missing, wrong, revoked and expired credentials (a 401
before any connection is opened), a token's account is the only account its connection
reaches, and a token revoked after the upgrade ends the connection."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from control_plane.bearer_tokens import BearerTokens
from control_plane.clock import ManualClock, SystemClock
from control_plane.redis_client import open_redis
from tests.conftest import TEST_ACCOUNT_ID, RunningGateway
from tests.gateway.rest.conftest import DAY_MS
from tests.gateway.ws.conftest import ConnectWs, NewToken

OTHER_ACCOUNT_ID = "222222222222"


async def _refused(url: str, headers: dict[str, str] | None = None) -> tuple[int, Any, Any]:
    with pytest.raises(InvalidStatus) as refused:
        async with connect(url, additional_headers=headers or {}):
            pytest.fail("the upgrade was accepted")
    response = refused.value.response
    return response.status_code, response.headers, json.loads(response.body or b"{}")


async def test_an_upgrade_without_credentials_is_refused(ws_url: str) -> None:
    status, headers, body = await _refused(ws_url)
    assert status == 401
    assert headers["WWW-Authenticate"] == 'Bearer realm="tidemq"'
    assert body["error"]["code"] == "MissingAuthenticationToken"
    assert "Bearer" in body["error"]["message"]


async def test_an_unknown_token_is_refused(ws_url: str) -> None:
    for token in ("tqb_" + "A" * 43, "not-a-token"):
        status, _, body = await _refused(ws_url, {"Authorization": f"Bearer {token}"})
        assert (status, body["error"]["code"]) == (401, "InvalidClientTokenId")
        status, _, body = await _refused(f"{ws_url}?access_token={token}")
        assert (status, body["error"]["code"]) == (401, "InvalidClientTokenId")


async def test_other_authorization_schemes_are_refused(ws_url: str) -> None:
    headers = {"Authorization": "AWS4-HMAC-SHA256 Credential=AKIA/20260101/x/sqs/aws4_request"}
    status, _, body = await _refused(ws_url, headers)
    assert (status, body["error"]["code"]) == (401, "IncompleteSignature")


async def test_an_expired_token_is_refused(ws_url: str, new_token: NewToken) -> None:
    issued_two_days_ago = ManualClock(SystemClock().now_ms() - 2 * DAY_MS)
    token = await new_token(ttl_ms=DAY_MS, clock=issued_two_days_ago)
    status, _, body = await _refused(ws_url, {"Authorization": f"Bearer {token}"})
    assert (status, body["error"]["code"]) == (401, "ExpiredToken")


async def test_a_revoked_token_is_refused(
    gateway: RunningGateway, ws_url: str, new_token: NewToken
) -> None:
    token = await new_token()
    await _revoke(gateway, token)
    status, _, body = await _refused(ws_url, {"Authorization": f"Bearer {token}"})
    assert (status, body["error"]["code"]) == (401, "InvalidClientTokenId")


async def test_the_token_may_come_as_a_query_parameter(
    ws_url: str, new_token: NewToken, gateway: RunningGateway
) -> None:
    gateway.sqs_client().create_queue(QueueName="orders")
    token = await new_token()
    async with connect(f"{ws_url}?access_token={token}") as connection:
        await connection.send(json.dumps({"op": "subscribe", "queue": "orders", "id": "s"}))
        answer = json.loads(await asyncio.wait_for(connection.recv(), 10))
    assert answer == {"type": "subscribed", "queue": "orders", "credit": 10, "id": "s"}


async def test_a_connection_reaches_only_its_tokens_account(
    gateway: RunningGateway, connect_ws: ConnectWs, new_token: NewToken
) -> None:
    sqs = gateway.sqs_client()
    url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="for account one")
    received = sqs.receive_message(QueueUrl=url, VisibilityTimeout=0)["Messages"][0]

    async with connect_ws(await new_token(OTHER_ACCOUNT_ID)) as other:
        # Account one's queue cannot be named from account two: it does not exist there.
        for frame in (
            {"op": "subscribe", "queue": "orders"},
            {"op": "publish", "queue": "orders", "messages": [{"body": "x"}]},
            {"op": "ack", "queue": "orders", "receipt_handles": [received["ReceiptHandle"]]},
        ):
            answer = await other.request(frame)
            assert answer["type"] == "error", answer
            assert answer["error"]["code"] == "QueueDoesNotExist"
        # Nor by its URL or a path.
        answer = await other.request({"op": "subscribe", "queue": f"{TEST_ACCOUNT_ID}/orders"})
        assert answer["error"]["code"] == "InvalidParameterValue"

    # A queue of the same name in account two is another queue: it does not get account
    # one's messages, and account one's receipts do not work on it.
    other_key = await asyncio.to_thread(gateway.create_key, OTHER_ACCOUNT_ID)
    other_sqs = gateway.client_for(other_key)
    other_sqs.create_queue(QueueName="orders")
    async with connect_ws(await new_token(OTHER_ACCOUNT_ID)) as other:
        await other.request({"op": "subscribe", "queue": "orders"})
        answer = await other.request(
            {"op": "ack", "queue": "orders", "receipt_handles": [received["ReceiptHandle"]]}
        )
        assert answer["results"][0]["error"]["code"] == "ReceiptHandleIsInvalid"
        await other.nothing_pushed(for_s=0.5)

    left = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1)["Messages"]
    assert [m["Body"] for m in left] == ["for account one"]


async def test_a_token_revoked_after_the_upgrade_ends_the_connection(
    gateway: RunningGateway, connect_ws: ConnectWs, new_token: NewToken
) -> None:
    gateway.server.config.app.state.ws_token_recheck_s = 0.2
    gateway.sqs_client().create_queue(QueueName="orders")
    token = await new_token()
    async with connect_ws(token) as client:
        assert (await client.request({"op": "subscribe", "queue": "orders"}))["type"] == (
            "subscribed"
        )
        await _revoke(gateway, token)
        frame = await client.recv()
        assert frame["type"] == "error"
        assert frame["error"]["code"] == "InvalidClientTokenId"
        with pytest.raises(ConnectionClosed) as closed:
            await client.recv()
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 1008


async def _revoke(gateway: RunningGateway, token: str) -> None:
    redis = open_redis(gateway.redis_url)
    try:
        assert await BearerTokens(redis, SystemClock()).revoke(token) is not None
    finally:
        await redis.aclose()
