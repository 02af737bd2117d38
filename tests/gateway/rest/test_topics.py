"""The REST API's topics through httpx against a real gateway: the catalogue, publishing
one message or a batch, subscribing, and SNS's rules and errors on the native wire."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx

from tests.conftest import TEST_ACCOUNT_ID, RunningGateway
from tests.gateway.rest.conftest import RestFor

OTHER_ACCOUNT = "111122223333"


def _error(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


def test_topics_are_created_listed_described_changed_and_deleted(rest: httpx.Client) -> None:
    created = rest.post("/v1/topics", json={"name": "news", "attributes": {"DisplayName": "N"}})
    assert created.status_code == 201
    topic = created.json()
    assert topic["arn"] == f"arn:aws:sns:us-east-1:{TEST_ACCOUNT_ID}:news"
    assert (topic["fifo"], topic["attributes"]["DisplayName"]) == (False, "N")
    assert rest.post("/v1/topics", json={"name": "news"}).json()["arn"] == topic["arn"]
    fifo = rest.post(
        "/v1/topics", json={"name": "jobs.fifo", "attributes": {"FifoTopic": "true"}}
    ).json()
    assert fifo["fifo"] is True
    for name in ("a", "b", "c"):
        rest.post("/v1/topics", json={"name": name})

    first = rest.get("/v1/topics", params={"limit": 2}).json()
    assert [t["name"] for t in first["topics"]] == ["a", "b"]
    rest_of = rest.get("/v1/topics", params={"after": first["next_after"]}).json()
    assert [t["name"] for t in rest_of["topics"]] == ["c", "jobs.fifo", "news"]
    assert "next_after" not in rest_of

    changed = rest.patch(
        "/v1/topics/news", json={"attributes": {"DisplayName": "", "SignatureVersion": "2"}}
    ).json()
    assert changed["attributes"]["DisplayName"] == ""
    assert changed["attributes"]["SignatureVersion"] == "2"
    assert rest.get("/v1/topics/news").json()["attributes"]["SignatureVersion"] == "2"

    assert rest.delete("/v1/topics/news").status_code == 204
    assert _error(rest.get("/v1/topics/news")) == (404, "NotFound")
    assert _error(rest.delete("/v1/topics/news")) == (404, "NotFound")


def test_bad_input_changes_nothing(rest: httpx.Client) -> None:
    rest.post("/v1/topics", json={"name": "news", "attributes": {"DisplayName": "N"}})
    # One bad attribute among good ones: none of them is set.
    bad = rest.patch("/v1/topics/news", json={"attributes": {"DisplayName": "M", "Nope": "1"}})
    assert _error(bad) == (400, "InvalidParameter")
    assert rest.get("/v1/topics/news").json()["attributes"]["DisplayName"] == "N"
    assert _error(rest.post("/v1/topics", json={"name": "bad name"}))[0] == 400
    assert _error(rest.post("/v1/topics", json={"name": "x.fifo"})) == (400, "InvalidParameter")
    assert _error(rest.get("/v1/topics/" + "x" * 300)) == (404, "NotFound")
    assert _error(rest.post("/v1/topics/nope/messages", json={"body": "x"})) == (404, "NotFound")
    assert rest.get("/v1/topics").json()["topics"] == [
        {"name": "news", "arn": f"arn:aws:sns:us-east-1:{TEST_ACCOUNT_ID}:news"}
    ]


def test_another_account_s_topics_are_not_there(rest: httpx.Client, rest_for: RestFor) -> None:
    rest.post("/v1/topics", json={"name": "news"})
    other = rest_for(OTHER_ACCOUNT)
    assert _error(other.get("/v1/topics/news")) == (404, "NotFound")
    assert other.get("/v1/topics").json()["topics"] == []


def test_publish_one_or_a_batch(rest: httpx.Client) -> None:
    rest.post("/v1/topics", json={"name": "news"})
    one = rest.post("/v1/topics/news/messages", json={"body": "hello", "subject": "greeting"})
    assert one.status_code == 201
    assert set(one.json()) == {"message_id"}
    batch = rest.post(
        "/v1/topics/news/messages/batch",
        json={"messages": [{"body": "a"}, {"body": "b", "delay_seconds": 5}, {"body": "c"}]},
    ).json()["results"]
    assert [r["index"] for r in batch] == [0, 1, 2]
    assert "message_id" in batch[0]
    assert "message_id" in batch[2]
    assert batch[1]["error"]["code"] == "InvalidParameterValue"
    assert "delay_seconds" in batch[1]["error"]["message"]
    empty = rest.post("/v1/topics/news/messages/batch", json={"messages": []})
    assert _error(empty) == (400, "EmptyBatchRequest")
    too_long = rest.post("/v1/topics/news/messages", json={"body": "x" * (256 * 1024 + 1)})
    assert _error(too_long) == (400, "InvalidParameter")
    # A subject is for topics: a queue refuses it, naming the field.
    rest.post("/v1/queues", json={"name": "q"})
    refused = rest.post("/v1/queues/q/messages", json={"body": "x", "subject": "s"})
    assert _error(refused) == (400, "InvalidParameterValue")
    assert "subject" in refused.json()["error"]["message"]


def test_fifo_topics_need_a_group_and_answer_duplicates_with_the_first(
    rest: httpx.Client,
) -> None:
    rest.post(
        "/v1/topics",
        json={
            "name": "jobs.fifo",
            "attributes": {"FifoTopic": "true", "ContentBasedDeduplication": "true"},
        },
    )
    missing = rest.post("/v1/topics/jobs.fifo/messages", json={"body": "x"})
    assert _error(missing) == (400, "InvalidParameter")
    first = rest.post("/v1/topics/jobs.fifo/messages", json={"body": "x", "group_id": "g"}).json()
    again = rest.post("/v1/topics/jobs.fifo/messages", json={"body": "x", "group_id": "g"}).json()
    assert again == first
    assert first["sequence_number"] == f"{0:020d}"


def test_a_queue_subscribed_on_rest_gets_what_its_filter_matches(
    rest: httpx.Client, gateway: RunningGateway
) -> None:
    rest.post("/v1/topics", json={"name": "orders"})
    queue = rest.post("/v1/queues", json={"name": "red-orders"}).json()
    subscribed = rest.post(
        "/v1/topics/orders/subscriptions",
        json={
            "protocol": "sqs",
            "endpoint": queue["arn"],
            "attributes": {"FilterPolicy": json.dumps({"colour": ["red"]})},
        },
    )
    assert subscribed.status_code == 201
    subscription = subscribed.json()
    assert (subscription["protocol"], subscription["pending"]) == ("sqs", False)
    assert "stats" not in subscription
    for colour in ("red", "green", "red"):
        attributes = {"colour": {"data_type": "String", "string_value": colour}}
        rest.post("/v1/topics/orders/messages", json={"body": colour, "attributes": attributes})
    bodies = _drain(rest, "red-orders", 2)
    assert [json.loads(b)["Message"] for b in bodies] == ["red", "red"]
    listed = rest.get("/v1/topics/orders/subscriptions").json()["subscriptions"]
    assert [s["id"] for s in listed] == [subscription["id"]]


def test_subscribing_is_checked_as_sns_checks_it(rest: httpx.Client) -> None:
    rest.post("/v1/topics", json={"name": "news"})
    rest.post("/v1/topics", json={"name": "jobs.fifo", "attributes": {"FifoTopic": "true"}})
    cases: list[tuple[str, dict[str, Any]]] = [
        ("news", {"protocol": "sqs", "endpoint": "not-an-arn"}),
        ("news", {"protocol": "http", "endpoint": "ftp://x"}),
        ("news", {"protocol": "pull", "endpoint": "has space"}),
        ("jobs.fifo", {"protocol": "pull", "endpoint": "workers"}),
        ("news", {"protocol": "pull", "endpoint": "w", "attributes": {"DeliveryPolicy": "{}"}}),
        ("news", {"protocol": "pull", "endpoint": "w", "attributes": {"FilterPolicy": "[1]"}}),
    ]
    for topic, body in cases:
        response = rest.post(f"/v1/topics/{topic}/subscriptions", json=body)
        assert _error(response) == (400, "InvalidParameter"), (body, response.text)
    unknown = rest.post("/v1/topics/news/subscriptions", json={"protocol": "sms", "endpoint": "1"})
    assert _error(unknown) == (400, "InvalidParameterValue")
    assert rest.get("/v1/topics/news/subscriptions").json()["subscriptions"] == []


def _drain(rest: httpx.Client, queue: str, expected: int) -> list[str]:
    bodies: list[str] = []
    deadline = time.monotonic() + 20
    while len(bodies) < expected and time.monotonic() < deadline:
        messages = rest.post(
            f"/v1/queues/{queue}/messages/receive", json={"max_messages": 10, "wait_seconds": 1}
        ).json()["messages"]
        if messages:
            handles = [m["receipt_handle"] for m in messages]
            rest.post(f"/v1/queues/{queue}/messages/delete", json={"receipt_handles": handles})
        bodies += [m["body"] for m in messages]
    return bodies
