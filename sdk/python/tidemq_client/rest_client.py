"""The generated REST client (tidemq_client.rest), set up the way TideMQ wants it:
credentials on every request, retries with backoff, and errors raised as ApiErrors.

    from tidemq_client import client, unwrap
    from tidemq_client.rest.api.queues import create_queue
    from tidemq_client.rest.models import CreateQueue

    tidemq = client()  # TIDEMQ_ENDPOINT, TIDEMQ_TOKEN or AWS_ACCESS_KEY_ID / ..._SECRET_...
    queue = unwrap(create_queue.sync(client=tidemq, body=CreateQueue(name="orders")))

Every generated operation has `sync`, `sync_detailed`, `asyncio` and `asyncio_detailed`
forms; the client serves both (one httpx.Client and one httpx.AsyncClient inside).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

import httpx

from tidemq_client.auth import BearerToken, SigV4
from tidemq_client.errors import TidemqError, api_error, from_response_body
from tidemq_client.rest.client import Client
from tidemq_client.rest.models import ErrorResponse
from tidemq_client.retries import AsyncRetryTransport, RetryPolicy, RetryTransport

DEFAULT_ENDPOINT = "http://127.0.0.1:9324"
DEFAULT_REGION = "us-east-1"
# Long enough for a receive's long poll (up to 20 s) to answer.
DEFAULT_TIMEOUT_S = 30.0
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Credentials:
    """A bearer token (`tidemq keys token`), or an access key to sign with (SigV4)."""

    token: str | None = None
    access_key_id: str | None = None
    secret_access_key: str | None = None
    region: str = DEFAULT_REGION

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Credentials:
        """TIDEMQ_TOKEN, else AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (with AWS_REGION
        or AWS_DEFAULT_REGION), the variables `tidemq up` prints."""
        env = os.environ if env is None else env
        return cls(
            token=env.get("TIDEMQ_TOKEN") or None,
            access_key_id=env.get("AWS_ACCESS_KEY_ID") or None,
            secret_access_key=env.get("AWS_SECRET_ACCESS_KEY") or None,
            region=env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or DEFAULT_REGION,
        )

    def auth(self) -> httpx.Auth:
        if self.token:
            return BearerToken(self.token)
        if self.access_key_id and self.secret_access_key:
            return SigV4(self.access_key_id, self.secret_access_key, self.region)
        raise TidemqError(
            "no credentials: give a token (TIDEMQ_TOKEN, from `tidemq keys token`) or an "
            "access key (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, as `tidemq up` prints)"
        )


def client(
    endpoint: str | None = None,
    credentials: Credentials | None = None,
    *,
    retry: RetryPolicy | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> Client:
    """A client of the REST API at `endpoint` (default: TIDEMQ_ENDPOINT, else
    http://127.0.0.1:9324) with `credentials` (default: from the environment).

    Any answer of 400 or more raises an ApiError of its class (tidemq_client.errors) once
    `retry` (default: RetryPolicy()) has given up on it, so an operation's result is never
    an ErrorResponse: `unwrap` says so to the type checker.
    """
    base_url = endpoint or os.environ.get("TIDEMQ_ENDPOINT") or DEFAULT_ENDPOINT
    auth = (credentials or Credentials.from_env()).auth()
    policy = retry or RetryPolicy()
    timeout = httpx.Timeout(timeout_s)
    generated = Client(base_url=base_url, raise_on_unexpected_status=True)
    generated.set_httpx_client(
        httpx.Client(
            base_url=base_url,
            auth=auth,
            timeout=timeout,
            transport=RetryTransport(policy),
            event_hooks={"response": [_raise_for_error]},
        )
    )
    generated.set_async_httpx_client(
        httpx.AsyncClient(
            base_url=base_url,
            auth=auth,
            timeout=timeout,
            transport=AsyncRetryTransport(policy),
            event_hooks={"response": [_araise_for_error]},
        )
    )
    return generated


def unwrap(result: _T | ErrorResponse | None) -> _T:
    """An operation's result (`sync` / `asyncio`) as its success type. The client raises
    every error itself; this raises only for a client made some other way."""
    if isinstance(result, ErrorResponse):
        raise api_error(result.error.code, result.error.message)
    if result is None:
        raise TidemqError("the operation answered with no body")
    return result


REQUEST_ID_HEADER = "x-amzn-RequestId"


def _raise_for_error(response: httpx.Response) -> None:
    if response.status_code >= 400:
        response.read()
        raise from_response_body(
            response.status_code, response.content, response.headers.get(REQUEST_ID_HEADER)
        )


async def _araise_for_error(response: httpx.Response) -> None:
    if response.status_code >= 400:
        await response.aread()
        raise from_response_body(
            response.status_code, response.content, response.headers.get(REQUEST_ID_HEADER)
        )
