"""The Python SDK (sdk/python, `tidemq-client`) against a real `tidemq up`: REST signed
with SigV4 and with a bearer token, sync and async, WebSocket subscribe / ack / nack /
extend / publish, errors as typed exceptions, and retries against a real HTTP server
that throttles."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from attrs import evolve

from tests.conftest import REGION, TEST_ACCOUNT_ID, free_port
from tests.sdk.conftest import SdkServer
from tidemq_client import Credentials, RetryPolicy, client, unwrap, websocket
from tidemq_client.errors import (
    BadRequest,
    CannotConnect,
    ConnectionClosed,
    NotFound,
    ServiceUnavailable,
    Throttled,
    Unauthorized,
)
from tidemq_client.frames.models import SendMessage as FrameMessage
from tidemq_client.rest.api.messages import (
    delete_messages,
    receive_messages,
    send_message,
    send_message_batch,
)
from tidemq_client.rest.api.queues import (
    create_queue,
    delete_queue,
    get_queue,
    get_queue_stats,
    list_queues,
)
from tidemq_client.rest.api.topics import create_topic, subscribe
from tidemq_client.rest.client import Client
from tidemq_client.rest.models import (
    CreateQueue,
    CreateSubscription,
    CreateTopic,
    DeleteMessages,
    Receive,
    SendBatch,
    SendMessage,
)

NO_RETRY_WAIT = RetryPolicy(max_attempts=3, base_delay_s=0.0)
SDK = Path(__file__).parents[2] / "sdk"


def _signed(server: SdkServer) -> Client:
    credentials = Credentials(
        access_key_id=server.access_key_id,
        secret_access_key=server.secret_access_key,
        region=REGION,
    )
    return client(server.endpoint, credentials)


def test_a_queue_round_trip_signed_with_sigv4(sdk_server: SdkServer) -> None:
    with _signed(sdk_server) as tidemq:
        _round_trip(tidemq)


def _round_trip(tidemq: Client) -> None:
    queue = unwrap(create_queue.sync(client=tidemq, body=CreateQueue(name="signed-orders")))
    assert queue.url.endswith("/signed-orders")

    batch = SendBatch(messages=[SendMessage(body=f"m{i}") for i in range(5)])
    sent = unwrap(send_message_batch.sync("signed-orders", client=tidemq, body=batch))
    assert [result.index for result in sent.results] == list(range(5))
    assert all(not result.error for result in sent.results)

    bodies: list[str] = []
    handles: list[str] = []
    for _ in range(10):  # a receive may answer with fewer messages than it could
        received = unwrap(
            receive_messages.sync(
                "signed-orders", client=tidemq, body=Receive(max_messages=10, wait_seconds=5)
            )
        )
        bodies += [message.body for message in received.messages]
        handles += [message.receipt_handle for message in received.messages]
        if len(bodies) == 5:
            break
    assert sorted(bodies) == [f"m{i}" for i in range(5)]

    deleted = unwrap(
        delete_messages.sync(
            "signed-orders", client=tidemq, body=DeleteMessages(receipt_handles=handles)
        )
    )
    assert all(not result.error for result in deleted.results)
    stats = unwrap(get_queue_stats.sync("signed-orders", client=tidemq))
    assert (stats.visible, stats.in_flight, stats.delayed) == (0, 0, 0)
    listed = unwrap(list_queues.sync(client=tidemq, prefix="signed-", limit=10))  # a signed query
    assert [queue.name for queue in listed.queues] == ["signed-orders"]
    delete_queue.sync("signed-orders", client=tidemq)


def test_errors_are_typed_exceptions_with_the_apis_code_and_message(
    sdk_server: SdkServer,
) -> None:
    with _signed(sdk_server) as tidemq, pytest.raises(NotFound) as missing:
        get_queue.sync("nowhere", client=tidemq)
    assert missing.value.code == "QueueDoesNotExist"
    assert missing.value.status == 404
    assert missing.value.message == "The specified queue does not exist."
    assert missing.value.request_id is not None
    assert uuid.UUID(missing.value.request_id).version == 4

    with _signed(sdk_server) as tidemq, pytest.raises(BadRequest) as bad_name:
        create_queue.sync(client=tidemq, body=CreateQueue(name="no spaces allowed"))
    assert bad_name.value.code == "InvalidParameterValue"

    wrong_secret = Credentials(access_key_id=sdk_server.access_key_id, secret_access_key="wrong")
    with (
        client(sdk_server.endpoint, wrong_secret) as tidemq,
        pytest.raises(Unauthorized) as refused,
    ):
        get_queue.sync("nowhere", client=tidemq)
    assert refused.value.code == "SignatureDoesNotMatch"


async def test_the_async_forms_with_a_bearer_token(sdk_server: SdkServer) -> None:
    async with client(sdk_server.endpoint, Credentials(token=sdk_server.token)) as tidemq:
        await create_queue.asyncio(client=tidemq, body=CreateQueue(name="jobs"))
        sent = SendMessage(body="hello")
        unwrap(await send_message.asyncio("jobs", client=tidemq, body=sent))
        received = unwrap(
            await receive_messages.asyncio("jobs", client=tidemq, body=Receive(wait_seconds=5))
        )
        assert [message.body for message in received.messages] == ["hello"]
        with pytest.raises(NotFound):
            await get_queue.asyncio("nowhere", client=tidemq)


async def test_websocket_subscribe_publish_ack_nack_extend(sdk_server: SdkServer) -> None:
    with client(sdk_server.endpoint, Credentials(token=sdk_server.token)) as tidemq:
        unwrap(create_queue.sync(client=tidemq, body=CreateQueue(name="pushed")))
    async with websocket.connect(sdk_server.endpoint, sdk_server.token) as connection:
        subscription = await connection.subscribe("pushed", credit=2, visibility_timeout_s=30)
        published = await connection.publish(
            "pushed", ["one", FrameMessage(body="two"), FrameMessage(body="three")]
        )
        assert [bool(result.error) for result in published] == [False, False, False]

        # Credit 2: two come; the third waits until one is settled.
        first = await asyncio.wait_for(anext(subscription), 10)
        second = await asyncio.wait_for(anext(subscription), 10)
        assert {first.body, second.body} <= {"one", "two", "three"}
        await first.extend(60)
        await first.ack()
        await second.nack()
        seen = {first.body}
        async with asyncio.timeout(30):
            async for delivery in subscription:
                await delivery.ack()
                seen.add(delivery.body)
                if seen == {"one", "two", "three"}:
                    break

        await first.ack()  # again: deletes nothing, as on SQS
        [result] = await subscription.ack(["forged"])
        assert result.error
        assert result.error.code == "ReceiptHandleIsInvalid"
        forged = websocket.Delivery(subscription, evolve(first.message, receipt_handle="forged"))
        with pytest.raises(BadRequest) as refused:
            await forged.ack()
        assert refused.value.code == "ReceiptHandleIsInvalid"
        with pytest.raises(NotFound) as missing:
            await connection.subscribe("nowhere")
        assert missing.value.code == "QueueDoesNotExist"
        await subscription.unsubscribe()
        assert [d async for d in subscription] == []

        # The server ends a subscription whose queue is deleted: iterating raises why.
        again = await connection.subscribe("pushed")
        with client(sdk_server.endpoint, Credentials(token=sdk_server.token)) as tidemq:
            stats = unwrap(get_queue_stats.sync("pushed", client=tidemq))
            assert (stats.visible, stats.in_flight) == (0, 0)  # every message was acked
            delete_queue.sync("pushed", client=tidemq)
        with pytest.raises(NotFound) as deleted:
            await asyncio.wait_for(anext(again), 10)
        assert deleted.value.code == "QueueDoesNotExist"

    with pytest.raises(ConnectionClosed):
        await connection.publish("pushed", ["after close"])


async def test_a_bad_token_is_refused_before_the_upgrade(sdk_server: SdkServer) -> None:
    with pytest.raises(Unauthorized) as refused:
        await websocket.connect(sdk_server.endpoint, "tqb_" + "x" * 43)
    assert refused.value.code == "InvalidClientTokenId"
    assert refused.value.status == 401


class ThrottlingServer(ThreadingHTTPServer):
    """Answers GET /v1/queues/q/stats with the statuses in `answers`, in turn, then 200."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Throttling)
        self.answers: list[int] = []
        self.requests = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Throttling(BaseHTTPRequestHandler):
    server: ThrottlingServer

    def do_GET(self) -> None:
        self.server.requests += 1
        status = self.server.answers.pop(0) if self.server.answers else 200
        if status == 200:
            body = {"visible": 1, "in_flight": 0, "delayed": 0}
        else:
            body = {"error": {"code": f"Code{status}", "message": "slow down"}}
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        if status == 429:
            self.send_header("retry-after", "0")
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def throttling_server() -> Iterator[ThrottlingServer]:
    server = ThrottlingServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_throttling_and_unavailability_are_retried(throttling_server: ThrottlingServer) -> None:
    credentials = Credentials(token="tqb_any")
    with client(throttling_server.url, credentials, retry=NO_RETRY_WAIT) as tidemq:
        throttling_server.answers = [429, 503]
        assert unwrap(get_queue_stats.sync("q", client=tidemq)).visible == 1
        assert throttling_server.requests == 3

        throttling_server.answers = [503, 503, 503]
        with pytest.raises(ServiceUnavailable) as unavailable:
            get_queue_stats.sync("q", client=tidemq)
        assert (unavailable.value.code, unavailable.value.message) == ("Code503", "slow down")
        assert unavailable.value.retriable
        assert throttling_server.requests == 6

        throttling_server.answers = [404]  # the request is wrong: not retried
        with pytest.raises(NotFound):
            get_queue_stats.sync("q", client=tidemq)
        assert throttling_server.requests == 7


async def test_the_async_client_retries_too(throttling_server: ThrottlingServer) -> None:
    credentials = Credentials(token="tqb_any")
    async with client(throttling_server.url, credentials, retry=NO_RETRY_WAIT) as tidemq:
        throttling_server.answers = [429, 429, 429]
        with pytest.raises(Throttled) as throttled:
            await get_queue_stats.asyncio("q", client=tidemq)
        assert throttled.value.status == 429
        assert throttling_server.requests == 3


def test_backoff_doubles_up_to_its_ceiling_and_follows_retry_after() -> None:
    policy = RetryPolicy(base_delay_s=0.1, max_delay_s=1.0, jitter=lambda ceiling: ceiling)
    assert [policy.delay_s(n) for n in (1, 2, 3, 4, 5)] == [0.1, 0.2, 0.4, 0.8, 1.0]
    assert policy.delay_s(1, retry_after="0.5") == 0.5
    assert policy.delay_s(1, retry_after="120") == 1.0
    with pytest.raises(ValueError, match="max_attempts"):
        RetryPolicy(max_attempts=0)


def test_the_readme_example_runs_as_printed(sdk_server: SdkServer, tmp_path: Path) -> None:
    [example] = re.findall(r"```python\n(.*?)```", (SDK / "README.md").read_text(), re.DOTALL)
    (tmp_path / "example.py").write_text(example)
    result = subprocess.run(
        [sys.executable, str(tmp_path / "example.py")],
        env={**os.environ, **sdk_server.env(), "PYTHONPATH": str(SDK / "python")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        f"{sdk_server.endpoint}/{TEST_ACCOUNT_ID}/orders\nhello\nworld\nQueueDoesNotExist\npushed\n"
    )


async def test_websocket_publish_to_a_topic_and_consume_its_pull_subscription(
    sdk_server: SdkServer,
) -> None:
    with client(sdk_server.endpoint, Credentials(token=sdk_server.token)) as tidemq:
        unwrap(create_topic.sync(client=tidemq, body=CreateTopic(name="alerts")))
        pull = unwrap(
            subscribe.sync(
                "alerts",
                client=tidemq,
                body=CreateSubscription(protocol="pull", endpoint="pager"),
            )
        )
    async with websocket.connect(sdk_server.endpoint, sdk_server.token) as connection:
        subscription = await connection.subscribe(subscription=pull.id, credit=5)
        published = await connection.publish(None, ["disk full", "fixed"], topic="alerts")
        assert [bool(result.error) for result in published] == [False, False]
        seen = []
        async with asyncio.timeout(30):
            async for delivery in subscription:
                await delivery.ack()
                seen.append(delivery.body)
                if len(seen) == 2:
                    break
        assert sorted(seen) == ["disk full", "fixed"]
        await subscription.unsubscribe()
        assert [d async for d in subscription] == []
        with pytest.raises(ValueError, match="exactly one"):
            await connection.subscribe("a-queue", subscription=pull.id)


async def test_an_endpoint_nobody_listens_on_raises_cannot_connect_after_the_retries() -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    policy = RetryPolicy(max_attempts=2, base_delay_s=0.0)
    with client(dead, Credentials(token="tqb_" + "x" * 43), retry=policy) as tidemq:
        with pytest.raises(CannotConnect) as refused:
            list_queues.sync(client=tidemq)
        assert refused.value.endpoint == dead
        with pytest.raises(CannotConnect):
            await list_queues.asyncio(client=tidemq)
