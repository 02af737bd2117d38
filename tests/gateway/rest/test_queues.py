"""Queue routes through real HTTP: create, list, describe, change, purge, tag, delete."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.conftest import RunningGateway


def _create(rest: httpx.Client, name: str, **fields: Any) -> dict[str, Any]:
    response = rest.post("/v1/queues", json={"name": name, **fields})
    assert response.status_code == 201, response.text
    return dict(response.json())


def _error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    error = response.json()["error"]
    assert error["code"] == code
    return str(error["message"])


def _names(rest: httpx.Client) -> list[str]:
    return [q["name"] for q in rest.get("/v1/queues").json()["queues"]]


def test_a_queue_is_created_described_and_deleted(
    rest: httpx.Client, gateway: RunningGateway
) -> None:
    created = _create(rest, "orders", attributes={"VisibilityTimeout": "45"}, tags={"team": "a"})
    assert created["url"] == f"{gateway.url}/123456789012/orders"
    assert created["arn"] == "arn:aws:sqs:us-east-1:123456789012:orders"
    assert created["fifo"] is False
    assert created["attributes"]["VisibilityTimeout"] == "45"
    assert created["attributes"]["DelaySeconds"] == "0"  # defaults included
    assert created["stats"] == {"visible": 0, "in_flight": 0, "delayed": 0}
    described = rest.get("/v1/queues/orders").json()
    assert described["created_timestamp"] == created["created_timestamp"]
    assert described["last_modified_timestamp"] >= described["created_timestamp"]
    assert rest.get("/v1/queues/orders/tags").json() == {"tags": {"team": "a"}}
    again = rest.post(
        "/v1/queues", json={"name": "orders", "attributes": {"VisibilityTimeout": "45"}}
    )
    assert again.status_code == 201  # same attributes: the same queue
    assert again.json()["created_timestamp"] == created["created_timestamp"]

    deleted = rest.delete("/v1/queues/orders")
    assert deleted.status_code == 204
    assert deleted.content == b""
    _error(rest.get("/v1/queues/orders"), 404, "QueueDoesNotExist")
    _error(rest.post("/v1/queues", json={"name": "orders"}), 409, "QueueDeletedRecently")


def test_a_name_taken_with_other_attributes_is_a_conflict(rest: httpx.Client) -> None:
    _create(rest, "orders")
    message = _error(
        rest.post("/v1/queues", json={"name": "orders", "attributes": {"DelaySeconds": "5"}}),
        409,
        "QueueNameExists",
    )
    assert "DelaySeconds" in message


def test_queues_are_listed_by_prefix_in_pages(rest: httpx.Client) -> None:
    for name in ("a1", "a2", "a3", "b1"):
        _create(rest, name)
    assert _names(rest) == ["a1", "a2", "a3", "b1"]
    first = rest.get("/v1/queues", params={"prefix": "a", "limit": 2}).json()
    assert [q["name"] for q in first["queues"]] == ["a1", "a2"]
    assert first["next_after"] == "a2"
    second = rest.get("/v1/queues", params={"prefix": "a", "limit": 2, "after": "a2"}).json()
    assert [q["name"] for q in second["queues"]] == ["a3"]
    assert "next_after" not in second


def test_attributes_change_and_a_fifo_queue_keeps_its_type(rest: httpx.Client) -> None:
    _create(rest, "orders")
    changed = rest.patch("/v1/queues/orders", json={"attributes": {"DelaySeconds": "7"}})
    assert changed.status_code == 200, changed.text
    assert changed.json()["attributes"]["DelaySeconds"] == "7"
    assert changed.json()["attributes"]["VisibilityTimeout"] == "30"
    fifo = _create(rest, "jobs.fifo", attributes={"FifoQueue": "true"})
    assert fifo["fifo"] is True
    assert fifo["attributes"]["ContentBasedDeduplication"] == "false"
    _error(
        rest.patch("/v1/queues/jobs.fifo", json={"attributes": {"FifoQueue": "false"}}),
        400,
        "InvalidAttributeValue",
    )


def test_tags_are_added_and_removed(rest: httpx.Client) -> None:
    _create(rest, "orders")
    added = rest.put("/v1/queues/orders/tags", json={"tags": {"team": "a", "env": "dev"}})
    assert added.json() == {"tags": {"team": "a", "env": "dev"}}
    removed = rest.request("DELETE", "/v1/queues/orders/tags", json={"keys": ["env", "nope"]})
    assert removed.status_code == 200
    assert removed.json() == {"tags": {"team": "a"}}
    _error(
        rest.put("/v1/queues/orders/tags", json={"tags": {"aws:x": "1"}}),
        400,
        "InvalidParameterValue",
    )
    assert rest.get("/v1/queues/orders/tags").json() == {"tags": {"team": "a"}}


def test_purge_empties_the_queue_once_a_minute(rest: httpx.Client) -> None:
    _create(rest, "orders")
    rest.post("/v1/queues/orders/messages", json={"body": "x"})
    assert rest.get("/v1/queues/orders/stats").json()["visible"] == 1
    assert rest.post("/v1/queues/orders/purge").status_code == 204
    assert rest.get("/v1/queues/orders/stats").json() == {
        "visible": 0,
        "in_flight": 0,
        "delayed": 0,
    }
    _error(rest.post("/v1/queues/orders/purge"), 409, "PurgeQueueInProgress")


def test_dead_letter_sources_are_listed(rest: httpx.Client) -> None:
    dlq = _create(rest, "orders-dlq")
    policy = f'{{"deadLetterTargetArn": "{dlq["arn"]}", "maxReceiveCount": "3"}}'
    _create(rest, "orders", attributes={"RedrivePolicy": policy})
    sources = rest.get("/v1/queues/orders-dlq/dead-letter-sources").json()
    assert [q["name"] for q in sources["queues"]] == ["orders"]
    assert rest.get("/v1/queues/orders/dead-letter-sources").json() == {"queues": []}


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"name": "bad name"}, "InvalidParameterValue"),
        ({"name": "x" * 81}, "InvalidParameterValue"),
        ({"name": "bad\n"}, "InvalidParameterValue"),
        ({"name": "plain", "attributes": {"FifoQueue": "true"}}, "InvalidParameterValue"),
        ({"name": "orders", "attributes": {"Bogus": "1"}}, "InvalidAttributeName"),
        ({"name": "orders", "attributes": {"VisibilityTimeout": "99999"}}, "InvalidAttributeValue"),
        ({"name": "orders", "attributes": {"VisibilityTimeout": 30}}, "InvalidParameterValue"),
        (
            {"name": "orders", "attributes": {"MaximumMessageSize": "1048577"}},
            "InvalidAttributeValue",
        ),
        ({"name": "orders", "tags": {"aws:x": "1"}}, "InvalidParameterValue"),
        ({"name": "orders", "extra": 1}, "InvalidParameterValue"),
        ({"attributes": {}}, "MissingParameter"),
        ({"name": 5}, "InvalidParameterValue"),
    ],
)
def test_bad_input_is_refused_and_creates_nothing(
    rest: httpx.Client, body: dict[str, Any], code: str
) -> None:
    _error(rest.post("/v1/queues", json=body), 400, code)
    assert _names(rest) == []


def test_malformed_requests_are_400s_and_unknown_paths_json_404s(rest: httpx.Client) -> None:
    _error(rest.post("/v1/queues", content=b"{"), 400, "SerializationException")
    _error(rest.post("/v1/queues", content=b"[]"), 400, "InvalidParameterValue")
    _error(rest.post("/v1/queues"), 400, "MissingParameter")
    _error(rest.get("/v1/queues", params={"limit": "0"}), 400, "InvalidParameterValue")
    _error(rest.get("/v1/queues", params={"limit": "x"}), 400, "InvalidParameterValue")
    _error(
        rest.get("/v1/queues", params=[("limit", "1"), ("limit", "2")]),
        400,
        "InvalidParameterValue",
    )
    _error(rest.get("/v1/queues", params={"colour": "red"}), 400, "InvalidParameterValue")
    _error(rest.get("/v1/nothing"), 404, "NotFound")
    _error(rest.get("/v1/queues/bad name"), 404, "QueueDoesNotExist")
    _error(rest.put("/v1/queues"), 405, "MethodNotAllowed")
    assert _names(rest) == []


def test_an_oversize_body_is_refused_unread(rest: httpx.Client) -> None:
    _create(rest, "orders")
    huge = b'{"body": "' + b"x" * (9 * 1024 * 1024) + b'"}'
    _error(rest.post("/v1/queues/orders/messages", content=huge), 413, "RequestTooLarge")
    assert rest.get("/v1/queues/orders/stats").json()["visible"] == 0
