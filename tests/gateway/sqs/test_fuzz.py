"""Fuzzing the SQS endpoint over real HTTP, in both protocols, with signed requests that
hypothesis builds from botocore's model of the actions (tests/gateway/sqs/fuzz_requests.py)
and with bodies of any bytes. Whatever is sent:

- the answer is never a 5xx: bad input is the client's fault, and says so;
- the answer is well-formed: JSON for JSON 1.0, XML for Query, errors included;
- a refused request (4xx) changes nothing: the queues, their attributes, their tags and
  their numbers of messages are as they were.

One gateway serves each test, with a standard and a FIFO queue holding messages, and the
receipts of the messages the fuzzed requests receive fed back to later ones, so that
deletes and visibility changes reach past the receipt check.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import httpx
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import TEST_ACCOUNT_ID, RunningGateway
from tests.gateway.sqs.fuzz_requests import (
    ACTIONS,
    QUERY_NOISE,
    QUEUE_ARNS,
    QUEUE_URLS,
    RAW_TAILS,
    RECEIPTS,
    form_body,
    json_body,
    query_pairs,
    request,
    resolve,
)
from tests.gateway.sqs.wire import NS
from tests.sigv4_signing import signed_post, signed_query_post

FUZZ = settings(
    max_examples=100,
    deadline=None,
    # One gateway for all examples of a test is the point: state carries over.
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# Requests of the model's shapes find more, more slowly (about 15 s each).
DEEP_FUZZ = settings(FUZZ, max_examples=300)
# What a refused request must leave as it was, per queue.
COUNTS = (
    "ApproximateNumberOfMessages",
    "ApproximateNumberOfMessagesNotVisible",
    "ApproximateNumberOfMessagesDelayed",
)


class Target:
    """The gateway under fuzz, its queues, and what the fuzzed requests may name."""

    def __init__(self, gateway: RunningGateway) -> None:
        self.gateway = gateway
        self.sqs = gateway.sqs_client()
        self.receipts: list[str] = []
        self._recreated = 0
        self.urls = [self._queue("fuzz"), self._queue("fuzz.fifo")]

    def actual(self) -> dict[str, str]:
        """What the placeholders of the strategies stand for now: the queues' URLs and
        ARNs, and receipts of the last messages received."""
        actual = {}
        for i, url in enumerate(self.urls):
            actual[QUEUE_URLS[i]] = url
            actual[QUEUE_ARNS[i]] = (
                f"arn:aws:sqs:us-east-1:{TEST_ACCOUNT_ID}:{url.rsplit('/', 1)[1]}"
            )
        for placeholder, receipt in zip(RECEIPTS, reversed(self.receipts), strict=False):
            actual[placeholder] = receipt
        return actual

    def state(self) -> dict[str, Any]:
        """Every queue: its attributes, its tags, and how many messages it holds."""
        self._restore_queues()
        state = {}
        for url in self.sqs.list_queues().get("QueueUrls", []):
            attributes = self.sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])
            values = attributes["Attributes"]
            # In flight, delayed and visible move between each other as time passes.
            messages = sum(int(values.pop(name)) for name in COUNTS)
            tags = self.sqs.list_queue_tags(QueueUrl=url).get("Tags", {})
            state[url] = (values, messages, tags)
        return state

    def keep_receipts(self, response: httpx.Response, query: bool) -> None:
        if response.status_code != 200:
            return
        if query:
            found = ET.fromstring(response.content).iterfind(".//sqs:ReceiptHandle", NS)
            self.receipts += [element.text or "" for element in found]
        else:
            messages = orjson.loads(response.content).get("Messages", [])
            self.receipts += [m["ReceiptHandle"] for m in messages if "ReceiptHandle" in m]

    def _queue(self, name: str) -> str:
        attributes = {"FifoQueue": "true", "ContentBasedDeduplication": "true"}
        fifo = name.endswith(".fifo")
        url: str = self.sqs.create_queue(QueueName=name, Attributes=attributes if fifo else {})[
            "QueueUrl"
        ]
        entries = [
            {"Id": str(i), "MessageBody": f"m{i}", **({"MessageGroupId": "g"} if fifo else {})}
            for i in range(3)
        ]
        self.sqs.send_message_batch(QueueUrl=url, Entries=entries)
        return url

    def _restore_queues(self) -> None:
        """A fuzzed DeleteQueue may hit a queue of ours; its name is reserved for a
        minute, so another takes its place."""
        existing = set(self.sqs.list_queues().get("QueueUrls", []))
        for i, url in enumerate(self.urls):
            if url not in existing:
                self._recreated += 1
                suffix = ".fifo" if url.endswith(".fifo") else ""
                self.urls[i] = self._queue(f"fuzz-{self._recreated}{suffix}")


@pytest.fixture
def target(gateway: RunningGateway) -> Target:
    return Target(gateway)


def _check(target: Target, response: httpx.Response, query: bool, before: dict[str, Any]) -> None:
    assert response.status_code < 500, response.text
    if query:
        assert response.headers["content-type"].startswith("text/xml")
        ET.fromstring(response.content)  # raises on anything not well-formed
    else:
        assert response.headers["content-type"] == "application/x-amz-json-1.0"
        assert isinstance(orjson.loads(response.content), dict)
    if response.status_code >= 400:
        assert target.state() == before, response.text
    else:
        target.keep_receipts(response, query)


@pytest.mark.slow
@DEEP_FUZZ
@given(request=request())
def test_json_requests(target: Target, request: tuple[str, dict[str, Any]]) -> None:
    before = target.state()
    action, params = resolve(request, target.actual())
    response = signed_post(target.gateway.url, f"AmazonSQS.{action}", json_body(params))
    _check(target, response, query=False, before=before)


@pytest.mark.slow
@DEEP_FUZZ
@given(
    request=request(),
    noise=st.one_of(st.just([]), QUERY_NOISE),
    tail=st.sampled_from(RAW_TAILS),
)
def test_query_requests(
    target: Target,
    request: tuple[str, dict[str, Any]],
    noise: list[tuple[str, str]],
    tail: bytes,
) -> None:
    before = target.state()
    action, params = resolve(request, target.actual())
    # Noise first: the request's own parameters win where names collide, as the last do.
    body = form_body([*resolve(noise, target.actual()), *query_pairs(action, params)], tail)
    response = signed_query_post(target.gateway.url, body)
    _check(target, response, query=True, before=before)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@FUZZ
@given(
    target_header=st.sampled_from([*(f"AmazonSQS.{a}" for a in ACTIONS), "", "AmazonSQS.", "X.Y"]),
    body=st.one_of(st.binary(max_size=64), JSON_VALUES.map(json_body)),
)
def test_json_bodies_of_any_bytes(target: Target, target_header: str, body: bytes) -> None:
    before = target.state()
    response = signed_post(target.gateway.url, target_header, body)
    _check(target, response, query=False, before=before)


@FUZZ
@given(
    action=st.sampled_from([*ACTIONS, ""]),
    rest=st.binary(max_size=96),
)
def test_query_bodies_of_any_bytes(target: Target, action: str, rest: bytes) -> None:
    body = f"Action={action}&QueueUrl={target.urls[0]}&".encode() + rest
    before = target.state()
    response = signed_query_post(target.gateway.url, body)
    _check(target, response, query=True, before=before)
