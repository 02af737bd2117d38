"""Posting one SNS message to an HTTP/S subscriber, as SNS does, over one shared pool of
keep-alive connections.

Each request is a POST of the envelope (gateway/core/notifications.py) or, with raw
delivery, of the message itself, with SNS's headers (`webhook_headers`):

    x-amz-sns-message-type        Notification, SubscriptionConfirmation or
                                  UnsubscribeConfirmation
    x-amz-sns-message-id          the message's id (the same on every retry)
    x-amz-sns-topic-arn           the topic
    x-amz-sns-subscription-arn    the subscription; not on a SubscriptionConfirmation,
                                  which comes before the subscription is confirmed
    x-amz-sns-rawdelivery         "true" with raw delivery
    Content-Type                  text/plain; charset=UTF-8, or the delivery policy's
                                  headerContentType (notifications only)
    User-Agent                    Amazon Simple Notification Service Agent

What an attempt's outcome means follows SNS ("Amazon SNS message delivery retries"):

    2xx                     delivered
    500-599, 100-101        a failed attempt: retried under the delivery policy
    no answer in 15 s, no   a failed attempt too: SNS's request timeout is 15 s, and it
    connection, bad TLS     retries connection errors and bad certificates alike
    429                     a failed attempt: the endpoint asks to be called again later.
                            SNS counts every 4xx as permanent; TideMQ retries this one,
                            within the same policy, rather than give up on a busy endpoint
    other 3xx and 4xx       a permanent failure: not retried. Redirects are not followed
                            (SNS follows none), so a subscriber cannot send TideMQ's
                            requests, and their signed bodies, on to another host

An endpoint's answer is read up to MAX_RESPONSE_BYTES, kept for logs; the connection of
a longer one is closed rather than drained, so a subscriber cannot hold a sender with an
endless answer. HTTPS endpoints need a certificate that the system trusts, as with SNS.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

import aiohttp

from gateway.core.delivery_policies import DEFAULT_CONTENT_TYPE

__all__ = [
    "MAX_RESPONSE_BYTES",
    "REQUEST_TIMEOUT_S",
    "USER_AGENT",
    "WebhookResult",
    "Webhooks",
    "webhook_headers",
]

USER_AGENT = "Amazon Simple Notification Service Agent"
REQUEST_TIMEOUT_S = 15.0
MAX_RESPONSE_BYTES = 1024
_TOO_MANY_REQUESTS = 429
_INFORMATIONAL_FAILURES = frozenset({100, 101})  # SNS counts these as failed attempts
# Connections across every endpoint, and to any one host: enough to keep many endpoints
# busy without one slow endpoint taking every socket.
MAX_CONNECTIONS = 256
MAX_CONNECTIONS_PER_HOST = 16


@dataclass(frozen=True, slots=True)
class WebhookResult:
    """How one attempt went: the endpoint's status, or why there was none."""

    status: int | None  # None: no HTTP answer (see `error`)
    error: str | None = None  # why there was no answer, or why none was asked for
    body: bytes = b""  # the start of the answer, at most MAX_RESPONSE_BYTES
    retry_allowed: bool = True  # False when the request could never work (a bad URL)

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    @property
    def retryable(self) -> bool:
        """A failed attempt that the delivery policy retries; False once delivered, and
        for a permanent failure."""
        if self.status is None:
            return self.retry_allowed
        return (
            500 <= self.status < 600
            or self.status == _TOO_MANY_REQUESTS
            or self.status in _INFORMATIONAL_FAILURES
        )


def webhook_headers(
    *,
    message_type: str,
    message_id: str,
    topic_arn: str,
    subscription_arn: str | None,
    content_type: str = DEFAULT_CONTENT_TYPE,
    raw: bool = False,
) -> dict[str, str]:
    """SNS's request headers; `subscription_arn` None for a SubscriptionConfirmation."""
    headers = {
        "x-amz-sns-message-type": message_type,
        "x-amz-sns-message-id": message_id,
        "x-amz-sns-topic-arn": topic_arn,
    }
    if subscription_arn is not None:
        headers["x-amz-sns-subscription-arn"] = subscription_arn
    if raw:
        headers["x-amz-sns-rawdelivery"] = "true"
    headers["Content-Type"] = content_type
    headers["User-Agent"] = USER_AGENT
    return headers


class Webhooks:
    """The HTTP client of every HTTP/S delivery of a gateway: one pool of connections,
    made on first use (it needs the running event loop), closed by `close`."""

    def __init__(
        self,
        max_connections: int = MAX_CONNECTIONS,
        max_connections_per_host: int = MAX_CONNECTIONS_PER_HOST,
    ) -> None:
        self._max_connections = max_connections
        self._max_connections_per_host = max_connections_per_host
        self._session: aiohttp.ClientSession | None = None

    async def post(
        self,
        url: str,
        body: bytes,
        headers: Mapping[str, str],
        timeout_s: float = REQUEST_TIMEOUT_S,
    ) -> WebhookResult:
        """One attempt; never raises for what the endpoint or the network does."""
        try:
            parts = urlsplit(url)
            usable = parts.scheme in ("http", "https") and bool(parts.hostname)
        except ValueError:  # a malformed IPv6 address, say
            usable = False
        if not usable:
            return WebhookResult(None, f"not an http or https URL: {url!r}", retry_allowed=False)
        try:
            async with self._open().post(
                url,
                data=body,
                headers=dict(headers),
                allow_redirects=False,
                timeout=aiohttp.ClientTimeout(total=timeout_s),
            ) as response:
                start = await _start_of(response)
                if not response.content.at_eof():
                    response.close()  # the rest is not worth reading: drop the connection
                return WebhookResult(response.status, None, start)
        except TimeoutError:
            return WebhookResult(None, f"no answer within {timeout_s:g} s")
        except aiohttp.InvalidURL as exc:
            return WebhookResult(None, f"not a usable URL: {exc}", retry_allowed=False)
        except aiohttp.ClientError as exc:
            return WebhookResult(None, f"{type(exc).__name__}: {exc}")

    async def close(self) -> None:
        if self._session is not None:
            session, self._session = self._session, None
            await session.close()

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None:
            connector = aiohttp.TCPConnector(
                limit=self._max_connections, limit_per_host=self._max_connections_per_host
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                # SNS sends neither; the answer's body is not used beyond a log line.
                skip_auto_headers=("Accept", "Accept-Encoding"),
                auto_decompress=False,
            )
        return self._session


async def _start_of(response: aiohttp.ClientResponse) -> bytes:
    data = bytearray()
    while len(data) < MAX_RESPONSE_BYTES:
        chunk = await response.content.read(MAX_RESPONSE_BYTES - len(data))
        if not chunk:
            break
        data += chunk
    return bytes(data)
