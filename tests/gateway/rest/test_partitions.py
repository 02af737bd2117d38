"""Partitions on the REST API: `partitions` on create (or the attribute `Partitions`),
shown on describe, fixed afterwards; messages sent to every partition received."""

from __future__ import annotations

from typing import Any

import httpx
import pytest


def _error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code, error
    return str(error["message"])


def test_a_queue_s_partitions_are_set_on_create_and_fixed(rest: httpx.Client) -> None:
    created = rest.post("/v1/queues", json={"name": "wide", "partitions": 4})
    assert created.status_code == 201, created.text
    body = created.json()
    assert (body["partitions"], body["attributes"]["Partitions"]) == (4, "4")
    assert rest.get("/v1/queues/wide").json()["partitions"] == 4
    by_attribute = rest.post("/v1/queues", json={"name": "also", "attributes": {"Partitions": "2"}})
    assert by_attribute.json()["partitions"] == 2
    assert rest.post("/v1/queues", json={"name": "plain"}).json()["partitions"] == 1
    # Creating it again: the same count is the same queue, another a conflict.
    assert rest.post("/v1/queues", json={"name": "wide", "partitions": 4}).status_code == 201
    _error(rest.post("/v1/queues", json={"name": "wide", "partitions": 2}), 409, "QueueNameExists")
    message = _error(
        rest.patch("/v1/queues/wide", json={"attributes": {"Partitions": "8"}}),
        400,
        "InvalidAttributeValue",
    )
    assert "cannot be changed" in message
    assert rest.get("/v1/queues/wide").json()["partitions"] == 4


@pytest.mark.parametrize(
    "request_body",
    [
        {"name": "bad", "partitions": 0},
        {"name": "bad", "partitions": 65},
        {"name": "bad", "partitions": "4"},
        {"name": "bad", "attributes": {"Partitions": "100"}},
        {"name": "bad", "partitions": 2, "attributes": {"Partitions": "3"}},
    ],
)
def test_bad_partition_counts_are_400_and_create_nothing(
    rest: httpx.Client, request_body: dict[str, Any]
) -> None:
    response = rest.post("/v1/queues", json=request_body)
    assert response.status_code == 400, response.text
    assert rest.get("/v1/queues/bad").status_code == 404
    topic = rest.post("/v1/topics", json=request_body)
    assert topic.status_code == 400, topic.text
    assert rest.get("/v1/topics/bad").status_code == 404


def test_every_partition_s_messages_are_received(rest: httpx.Client) -> None:
    rest.post("/v1/queues", json={"name": "spread", "partitions": 3})
    sent = {f"m{i}" for i in range(30)}
    for body in sorted(sent):
        response = rest.post("/v1/queues/spread/messages", json={"body": body})
        assert response.status_code == 201, response.text
    received: list[str] = []
    while True:
        messages = rest.post(
            "/v1/queues/spread/messages/receive", json={"max_messages": 10}
        ).json()["messages"]
        if not messages:
            break
        received += [m["body"] for m in messages]
        handles = [m["receipt_handle"] for m in messages]
        rest.post("/v1/queues/spread/messages/delete", json={"receipt_handles": handles})
    assert sorted(received) == sorted(sent)
    assert rest.get("/v1/queues/spread").json()["stats"] == {
        "visible": 0,
        "in_flight": 0,
        "delayed": 0,
    }


def test_a_topic_s_partitions_are_set_on_create_and_fixed(rest: httpx.Client) -> None:
    created = rest.post("/v1/topics", json={"name": "news", "partitions": 3})
    assert created.status_code == 201, created.text
    assert (created.json()["partitions"], created.json()["attributes"]["Partitions"]) == (3, "3")
    assert rest.get("/v1/topics/news").json()["partitions"] == 3
    assert rest.post("/v1/topics", json={"name": "plain"}).json()["partitions"] == 1
    message = _error(
        rest.patch("/v1/topics/news", json={"attributes": {"Partitions": "1"}}),
        400,
        "InvalidParameter",
    )
    assert "cannot be changed" in message
    assert rest.get("/v1/topics/news").json()["partitions"] == 3
