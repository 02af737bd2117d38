"""The requests of each `tidemq bench` workload, over REST (the bench's own HTTP client,
tidemq/bench/http_client.py) and SQS (boto3).

A step does one operation and returns the messages it carried. Against the ceiling app
(`ceiling=True`) the steps send the same requests to the same paths; the app answers `{}`,
so a batch counts as full and a receive is followed by a delete of as many synthetic
receipt handles, of a real handle's length, as a full receive returns.
"""

from __future__ import annotations

import string
from typing import Any

import aiohttp
import boto3
import orjson
from botocore.config import Config

from tidemq.bench.http_client import HttpClient, HttpError
from tidemq.bench.load import AsyncStep, SyncStep

ACCOUNT_ID = "123456789012"
MESSAGE_BYTES = 256
VISIBILITY_S = 900  # longer than any run: nothing is redelivered while measuring
WAIT_S = 1  # long poll; short so that the last, empty receives end the run soon
_FAKE_RECEIPT = "A" * 72  # the length of a TideMQ receipt handle


def message_body() -> str:
    alphabet = string.ascii_letters + string.digits
    return "".join(alphabet[i % len(alphabet)] for i in range(MESSAGE_BYTES))


class Rest:
    """One queue over the REST API of `http`'s server (or the ceiling app at the same
    paths)."""

    def __init__(self, http: HttpClient, queue: str, ceiling: bool) -> None:
        self.http = http
        self.queue_url = f"{http.base}/v1/queues/{queue}"
        self.ceiling = ceiling

    async def create(self) -> None:
        base = self.queue_url.rsplit("/", 1)[0]
        name = self.queue_url.rsplit("/", 1)[1]
        attributes = {"VisibilityTimeout": str(VISIBILITY_S)}
        await self.http.post(base, orjson.dumps({"name": name, "attributes": attributes}))

    async def visible(self) -> int:
        status, body = await self.http.request("GET", f"{self.queue_url}/stats")
        if status != 200:
            raise HttpError(f"{status} from stats: {body[:200]!r}")
        return int(orjson.loads(body)["visible"])

    async def delete_queue(self) -> None:
        await self.http.request("DELETE", self.queue_url)

    def publish_single(self) -> AsyncStep:
        url = f"{self.queue_url}/messages"
        data = orjson.dumps({"body": message_body()})

        async def step() -> int:
            await self.http.post(url, data)
            return 1

        return step

    def publish_batch(self, size: int) -> AsyncStep:
        url = f"{self.queue_url}/messages/batch"
        data = orjson.dumps({"messages": [{"body": message_body()}] * size})

        async def step() -> int:
            answer = orjson.loads(await self.http.post(url, data))
            if self.ceiling:
                return size
            results: list[dict[str, Any]] = answer["results"]
            failed = [r for r in results if "error" in r]
            if failed:
                raise HttpError(f"{len(failed)} of {size} failed: {failed[0]['error']}")
            return len(results)

        return step

    def consume(self, size: int) -> AsyncStep:
        receive_url = f"{self.queue_url}/messages/receive"
        delete_url = f"{self.queue_url}/messages/delete"
        receive = orjson.dumps(
            {"max_messages": size, "wait_seconds": WAIT_S, "visibility_timeout": VISIBILITY_S}
        )

        async def step() -> int:
            answer = orjson.loads(await self.http.post(receive_url, receive))
            if self.ceiling:
                handles = [_FAKE_RECEIPT] * size
            else:
                handles = [m["receipt_handle"] for m in answer["messages"]]
            if not handles:
                return 0
            deleted = orjson.loads(
                await self.http.post(delete_url, orjson.dumps({"receipt_handles": handles}))
            )
            failed = [r for r in deleted.get("results", []) if "error" in r]
            if failed:
                raise HttpError(f"{len(failed)} deletes failed: {failed[0]['error']}")
            return len(handles)

        return step


def rest_session(connections: int, token: str) -> aiohttp.ClientSession:
    """For the WebSocket workloads (aiohttp's WebSocket client): HTTP/1.1 keep-alive, at
    most `connections` sockets, no cookies, no decompression."""
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=connections, limit_per_host=connections),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        cookie_jar=aiohttp.DummyCookieJar(),
        auto_decompress=False,
        timeout=aiohttp.ClientTimeout(total=60),
    )


class Sqs:
    """One queue over the SQS API through boto3, one client per worker thread."""

    def __init__(self, endpoint: str, queue: str, key_id: str, secret: str, ceiling: bool) -> None:
        self.endpoint = endpoint
        self.queue_url = f"{endpoint}/{ACCOUNT_ID}/{queue}"
        self.key_id = key_id
        self.secret = secret
        self.ceiling = ceiling

    def client(self) -> Any:
        return boto3.session.Session().client(
            "sqs",
            endpoint_url=self.endpoint,
            region_name="us-east-1",
            aws_access_key_id=self.key_id,
            aws_secret_access_key=self.secret,
            config=Config(retries={"max_attempts": 1, "mode": "standard"}),
        )

    def publish_batch(self) -> SyncStep:
        client = self.client()
        body = message_body()
        entries = [{"Id": f"m{i}", "MessageBody": body} for i in range(10)]

        def step() -> int:
            answer = client.send_message_batch(QueueUrl=self.queue_url, Entries=entries)
            if self.ceiling:
                return len(entries)
            if answer.get("Failed"):
                raise HttpError(f"SendMessageBatch failed: {answer['Failed'][0]}")
            return len(answer["Successful"])

        return step

    def consume(self) -> SyncStep:
        client = self.client()

        def step() -> int:
            answer = client.receive_message(
                QueueUrl=self.queue_url,
                MaxNumberOfMessages=10,
                WaitTimeSeconds=WAIT_S,
                VisibilityTimeout=VISIBILITY_S,
            )
            if self.ceiling:
                handles = [_FAKE_RECEIPT] * 10
            else:
                handles = [m["ReceiptHandle"] for m in answer.get("Messages", [])]
            if not handles:
                return 0
            entries = [{"Id": str(i), "ReceiptHandle": h} for i, h in enumerate(handles)]
            deleted = client.delete_message_batch(QueueUrl=self.queue_url, Entries=entries)
            if deleted.get("Failed"):
                raise HttpError(f"DeleteMessageBatch failed: {deleted['Failed'][0]}")
            return len(handles)

        return step
