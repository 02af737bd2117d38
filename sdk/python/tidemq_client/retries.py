"""Retries with backoff: an httpx transport that sends a request again when TideMQ is
throttling (429), unavailable (503) or failing (other 5xx), or could not be reached.

Attempt n (from 1) waits a random time in [0, min(max_delay_s, base_delay_s * 2**(n-1))]
before attempt n+1 ("full jitter", so many clients retrying at once spread out), or the
server's `Retry-After` seconds when it sends one (capped at max_delay_s). After
`max_attempts` the last answer is returned as it is, and the client raises its error.

What is not retried: a 4xx other than 429 (the request itself is wrong), and a request
whose answer was lost on the way (a read timeout): it may have been carried out, and a
repeated send would be a second message. A 5xx can still mean a send happened, as on
SQS: delivery is at least once, and FIFO queues drop a repeat by its deduplication id.
The signature (tidemq_client.auth) is made once per request, before the first attempt;
a signature is valid for 15 minutes, longer than any backoff here.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import httpx

from tidemq_client.errors import CannotConnect

RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """`max_attempts` 1 turns retries off."""

    max_attempts: int = 4
    base_delay_s: float = 0.1
    max_delay_s: float = 5.0
    statuses: frozenset[int] = RETRIED_STATUSES
    jitter: Callable[[float], float] = field(default=lambda ceiling: random.uniform(0, ceiling))

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")

    def delay_s(self, attempt: int, retry_after: str | None = None) -> float:
        """How long to wait after failed attempt `attempt` (from 1)."""
        if retry_after is not None:
            try:
                return min(max(float(retry_after), 0.0), self.max_delay_s)
            except ValueError:
                pass  # an HTTP date: rare from TideMQ; back off as usual
        return self.jitter(min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1)))


# Failures where the request cannot have reached the server: safe to send again.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


class RetryTransport(httpx.BaseTransport):
    def __init__(
        self,
        policy: RetryPolicy,
        inner: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.policy = policy
        self.inner = inner or httpx.HTTPTransport()
        self.sleep = sleep

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        for attempt in range(1, self.policy.max_attempts):
            try:
                response = self.inner.handle_request(request)
            except _NOT_SENT:
                self.sleep(self.policy.delay_s(attempt))
                continue
            if response.status_code not in self.policy.statuses:
                return response
            response.read()
            response.close()
            self.sleep(self.policy.delay_s(attempt, response.headers.get("retry-after")))
        try:
            return self.inner.handle_request(request)
        except _NOT_SENT as exc:
            raise _cannot_connect(request, exc) from exc

    def close(self) -> None:
        self.inner.close()


class AsyncRetryTransport(httpx.AsyncBaseTransport):
    def __init__(
        self,
        policy: RetryPolicy,
        inner: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.policy = policy
        self.inner = inner or httpx.AsyncHTTPTransport()
        self.sleep = sleep

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        for attempt in range(1, self.policy.max_attempts):
            try:
                response = await self.inner.handle_async_request(request)
            except _NOT_SENT:
                await self.sleep(self.policy.delay_s(attempt))
                continue
            if response.status_code not in self.policy.statuses:
                return response
            await response.aread()
            await response.aclose()
            await self.sleep(self.policy.delay_s(attempt, response.headers.get("retry-after")))
        try:
            return await self.inner.handle_async_request(request)
        except _NOT_SENT as exc:
            raise _cannot_connect(request, exc) from exc

    async def aclose(self) -> None:
        await self.inner.aclose()


def _cannot_connect(request: httpx.Request, exc: Exception) -> CannotConnect:
    url = request.url
    return CannotConnect(f"{url.scheme}://{url.netloc.decode()}", str(exc) or type(exc).__name__)
