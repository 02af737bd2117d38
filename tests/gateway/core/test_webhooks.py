"""Posting to a webhook: against a real HTTP server on loopback that records what it gets."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from aiohttp import web
from cryptography.hazmat.primitives import serialization

from control_plane.signing_keys import generate
from gateway.core.webhooks import (
    MAX_RESPONSE_BYTES,
    USER_AGENT,
    Webhooks,
    webhook_headers,
)
from tidemq.redis_server import free_port

TOPIC_ARN = "arn:aws:sns:us-east-1:123456789012:MyTopic"
SUBSCRIPTION_ARN = f"{TOPIC_ARN}:c9135db0-26c4-47ec-8998-413945fb5a96"
HEADERS = webhook_headers(
    message_type="Notification",
    message_id="22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324",
    topic_arn=TOPIC_ARN,
    subscription_arn=SUBSCRIPTION_ARN,
)


@dataclass
class Received:
    path: str
    method: str
    headers: dict[str, str]
    body: bytes
    client_port: int


@dataclass
class Endpoint:
    url: str
    received: list[Received] = field(default_factory=list)

    def paths(self) -> list[str]:
        return [request.path for request in self.received]


@pytest.fixture
async def endpoint() -> AsyncIterator[Endpoint]:
    """A subscriber's server: records every request, answers by its path."""
    port = free_port()
    served = Endpoint(f"http://127.0.0.1:{port}")
    release = asyncio.Event()  # ends the handlers that hold their answer back

    async def handle(request: web.Request) -> web.StreamResponse:
        peer = request.transport.get_extra_info("peername") if request.transport else None
        served.received.append(
            Received(
                request.path,
                request.method,
                dict(request.headers),
                await request.read(),
                peer[1] if peer else 0,
            )
        )
        answers = {
            "/ok": (200, b"thanks"),
            "/accepted": (202, b""),
            "/fail": (500, b"oops"),
            "/unavailable": (503, b""),
            "/busy": (429, b""),
            "/gone": (404, b"no such endpoint"),
            "/bad": (400, b""),
        }
        if request.path in answers:
            status, text = answers[request.path]
            return web.Response(status=status, body=text)
        if request.path == "/moved":
            raise web.HTTPFound(f"{served.url}/ok")
        if request.path == "/slow":
            await release.wait()
            return web.Response(text="late")
        if request.path == "/endless":
            response = web.StreamResponse()
            await response.prepare(request)
            try:
                while not release.is_set():
                    await response.write(b"x" * 65536)
            except ConnectionError:
                pass  # the client hung up, as it should
            return response
        return web.Response(status=418)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    runner = web.AppRunner(app, shutdown_timeout=1)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    yield served
    release.set()
    await runner.cleanup()


@pytest.fixture
async def webhooks() -> AsyncIterator[Webhooks]:
    client = Webhooks()
    yield client
    await client.close()


async def test_a_2xx_answer_is_a_delivery_with_snss_request(
    endpoint: Endpoint, webhooks: Webhooks
) -> None:
    body = b'{\n  "Type" : "Notification"\n}'
    result = await webhooks.post(f"{endpoint.url}/ok", body, HEADERS)
    assert result.ok
    assert not result.retryable
    assert (result.status, result.body, result.error) == (200, b"thanks", None)
    [received] = endpoint.received
    assert (received.method, received.body) == ("POST", body)
    assert received.headers["x-amz-sns-message-type"] == "Notification"
    assert received.headers["x-amz-sns-message-id"] == "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324"
    assert received.headers["x-amz-sns-topic-arn"] == TOPIC_ARN
    assert received.headers["x-amz-sns-subscription-arn"] == SUBSCRIPTION_ARN
    assert received.headers["Content-Type"] == "text/plain; charset=UTF-8"
    assert received.headers["User-Agent"] == "Amazon Simple Notification Service Agent"
    assert received.headers["Content-Length"] == str(len(body))
    assert "x-amz-sns-rawdelivery" not in received.headers
    assert "Accept-Encoding" not in received.headers

    accepted = await webhooks.post(f"{endpoint.url}/accepted", body, HEADERS)
    assert accepted.ok


def test_headers_of_confirmations_and_raw_deliveries() -> None:
    confirmation = webhook_headers(
        message_type="SubscriptionConfirmation",
        message_id="m",
        topic_arn=TOPIC_ARN,
        subscription_arn=None,
    )
    assert confirmation == {
        "x-amz-sns-message-type": "SubscriptionConfirmation",
        "x-amz-sns-message-id": "m",
        "x-amz-sns-topic-arn": TOPIC_ARN,
        "Content-Type": "text/plain; charset=UTF-8",
        "User-Agent": USER_AGENT,
    }
    raw = webhook_headers(
        message_type="Notification",
        message_id="m",
        topic_arn=TOPIC_ARN,
        subscription_arn=SUBSCRIPTION_ARN,
        content_type="application/json",
        raw=True,
    )
    assert raw["x-amz-sns-rawdelivery"] == "true"
    assert raw["Content-Type"] == "application/json"
    assert raw["x-amz-sns-subscription-arn"] == SUBSCRIPTION_ARN


@pytest.mark.parametrize("path", ["/fail", "/unavailable", "/busy"])
async def test_server_errors_and_429_are_failed_attempts_to_retry(
    endpoint: Endpoint, webhooks: Webhooks, path: str
) -> None:
    result = await webhooks.post(endpoint.url + path, b"{}", HEADERS)
    assert not result.ok
    assert result.retryable
    assert result.status in (500, 503, 429)
    assert endpoint.paths() == [path]


@pytest.mark.parametrize(("path", "status"), [("/gone", 404), ("/bad", 400), ("/moved", 302)])
async def test_other_client_errors_and_redirects_are_permanent_failures(
    endpoint: Endpoint, webhooks: Webhooks, path: str, status: int
) -> None:
    result = await webhooks.post(endpoint.url + path, b"{}", HEADERS)
    assert (result.status, result.ok, result.retryable) == (status, False, False)
    # The redirect is not followed: nothing reached the place it points at.
    assert endpoint.paths() == [path]


async def test_no_answer_in_time_is_a_failed_attempt(
    endpoint: Endpoint, webhooks: Webhooks
) -> None:
    result = await webhooks.post(f"{endpoint.url}/slow", b"{}", HEADERS, timeout_s=0.3)
    assert result.status is None
    assert result.retryable
    assert result.error == "no answer within 0.3 s"
    assert endpoint.paths() == ["/slow"]


async def test_no_connection_is_a_failed_attempt(webhooks: Webhooks) -> None:
    nobody = f"http://127.0.0.1:{free_port()}/"  # nothing listens there
    result = await webhooks.post(nobody, b"{}", HEADERS, timeout_s=5)
    assert result.status is None
    assert result.retryable
    assert result.error is not None


async def test_an_untrusted_certificate_is_a_failed_attempt(
    webhooks: Webhooks, tmp_path: Path
) -> None:
    key = generate()  # self-signed: no system trusts it
    (tmp_path / "cert.pem").write_bytes(key.certificate_pem)
    (tmp_path / "key.pem").write_bytes(
        key.private_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    reached = []

    async def handle(request: web.Request) -> web.Response:
        reached.append(request.path)
        return web.Response()

    app = web.Application()
    app.router.add_post("/", handle)
    runner = web.AppRunner(app, shutdown_timeout=1)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port, ssl_context=context).start()
    try:
        result = await webhooks.post(f"https://127.0.0.1:{port}/", b"{}", HEADERS, timeout_s=5)
    finally:
        await runner.cleanup()
    assert result.status is None
    assert result.retryable
    assert "Certificate" in (result.error or "")
    assert reached == []


@pytest.mark.parametrize(
    "url", ["ftp://127.0.0.1/x", "not a url", "http://", "http://[::1/", "file:///etc/passwd"]
)
async def test_a_url_that_could_never_work_is_a_permanent_failure(
    webhooks: Webhooks, url: str
) -> None:
    result = await webhooks.post(url, b"{}", HEADERS)
    assert (result.status, result.ok, result.retryable) == (None, False, False)
    assert result.error is not None


async def test_an_endless_answer_is_cut_short_and_the_pool_carries_on(
    endpoint: Endpoint, webhooks: Webhooks
) -> None:
    result = await webhooks.post(f"{endpoint.url}/endless", b"{}", HEADERS, timeout_s=10)
    assert result.ok
    assert result.body == b"x" * MAX_RESPONSE_BYTES
    after = await webhooks.post(f"{endpoint.url}/ok", b"{}", HEADERS)
    assert after.ok


async def test_deliveries_to_one_endpoint_share_a_kept_alive_connection(
    endpoint: Endpoint, webhooks: Webhooks
) -> None:
    for _ in range(3):
        assert (await webhooks.post(f"{endpoint.url}/ok", b"{}", HEADERS)).ok
    assert len({request.client_port for request in endpoint.received}) == 1


async def test_closing_is_idempotent_and_a_closed_client_opens_a_new_pool(
    endpoint: Endpoint,
) -> None:
    webhooks = Webhooks()
    await webhooks.close()  # never opened
    assert (await webhooks.post(f"{endpoint.url}/ok", b"{}", HEADERS)).ok
    await webhooks.close()
    await webhooks.close()
    assert (await webhooks.post(f"{endpoint.url}/ok", b"{}", HEADERS)).ok
    await webhooks.close()
