"""Message routes through real HTTP: send, batches beyond SQS's ten, receive and long
polls, delete, visibility, FIFO queues and delay levels."""

from __future__ import annotations

import base64
import hashlib
import threading
from typing import Any

import httpx
import pytest

from control_plane.clock import ManualClock
from tests.conftest import RunningGateway, start_gateway
from tests.gateway.rest.conftest import MakeToken, rest_client


def _queue(rest: httpx.Client, name: str = "orders", **attributes: str) -> str:
    response = rest.post("/v1/queues", json={"name": name, "attributes": attributes})
    assert response.status_code == 201, response.text
    return f"/v1/queues/{name}"


def _receive(rest: httpx.Client, path: str, **fields: Any) -> list[dict[str, Any]]:
    response = rest.post(f"{path}/messages/receive", json=fields)
    assert response.status_code == 200, response.text
    return list(response.json()["messages"])


def _stats(rest: httpx.Client, path: str) -> dict[str, int]:
    return dict(rest.get(f"{path}/stats").json())


def test_a_message_is_sent_received_and_deleted(rest: httpx.Client) -> None:
    path = _queue(rest)
    attributes = {
        "colour": {"data_type": "String", "string_value": "blue"},
        "size": {"data_type": "Number", "string_value": "3"},
        "blob": {"data_type": "Binary", "binary_value": base64.b64encode(b"\x00\x01").decode()},
    }
    sent = rest.post(f"{path}/messages", json={"body": "hello", "attributes": attributes})
    assert sent.status_code == 201, sent.text
    assert sent.json()["md5_of_body"] == hashlib.md5(b"hello").hexdigest()
    assert "md5_of_attributes" in sent.json()
    assert "sequence_number" not in sent.json()

    [message] = _receive(rest, path, max_messages=10, visibility_timeout=60)
    assert message["message_id"] == sent.json()["message_id"]
    assert message["body"] == "hello"
    assert message["attributes"] == attributes
    assert message["receive_count"] == 1
    assert message["first_receive_timestamp"] >= message["sent_timestamp"]
    assert _stats(rest, path) == {"visible": 0, "in_flight": 1, "delayed": 0}

    deleted = rest.post(
        f"{path}/messages/delete", json={"receipt_handles": [message["receipt_handle"], "forged"]}
    )
    assert deleted.status_code == 200
    [ok, forged] = deleted.json()["results"]
    assert ok == {"index": 0}
    assert forged["index"] == 1
    assert forged["error"]["code"] == "ReceiptHandleIsInvalid"
    assert _stats(rest, path) == {"visible": 0, "in_flight": 0, "delayed": 0}


def test_visibility_changes_per_entry(rest: httpx.Client) -> None:
    path = _queue(rest)
    rest.post(f"{path}/messages", json={"body": "again"})
    [message] = _receive(rest, path)
    changed = rest.post(
        f"{path}/messages/visibility",
        json={
            "entries": [
                {"receipt_handle": message["receipt_handle"], "visibility_timeout": 0},
                {"receipt_handle": "forged", "visibility_timeout": 0},
            ]
        },
    )
    assert changed.status_code == 200
    [ok, forged] = changed.json()["results"]
    assert ok == {"index": 0}
    assert forged["error"]["code"] == "ReceiptHandleIsInvalid"
    [again] = _receive(rest, path)
    assert again["message_id"] == message["message_id"]
    assert again["receive_count"] == 2
    stale = rest.post(
        f"{path}/messages/visibility",
        json={"entries": [{"receipt_handle": message["receipt_handle"], "visibility_timeout": 5}]},
    )
    assert stale.json()["results"][0]["error"]["code"] == "MessageNotInflight"


def test_a_batch_of_a_hundred_is_one_request_and_a_receive_takes_them_all(
    rest: httpx.Client,
) -> None:
    path = _queue(rest)
    messages = [{"body": f"m{i}"} for i in range(100)]
    sent = rest.post(f"{path}/messages/batch", json={"messages": messages})
    assert sent.status_code == 200, sent.text
    results = sent.json()["results"]
    assert [r["index"] for r in results] == list(range(100))
    assert all("message_id" in r and "error" not in r for r in results)
    received = _receive(rest, path, max_messages=100)
    assert sorted(m["body"] for m in received) == sorted(m["body"] for m in messages)
    handles = [m["receipt_handle"] for m in received]
    deleted = rest.post(f"{path}/messages/delete", json={"receipt_handles": handles})
    assert all("error" not in r for r in deleted.json()["results"])
    assert _stats(rest, path) == {"visible": 0, "in_flight": 0, "delayed": 0}


def test_batch_entries_fail_alone_and_bad_batches_send_nothing(rest: httpx.Client) -> None:
    path = _queue(rest)
    mixed = rest.post(
        f"{path}/messages/batch",
        json={"messages": [{"body": "ok"}, {"body": "fifo only", "dedup_id": "d"}, {"body": "ok"}]},
    )
    [first, bad, third] = mixed.json()["results"]
    assert "message_id" in first
    assert "message_id" in third
    assert bad["index"] == 1
    assert bad["error"]["code"] == "InvalidParameterValue"
    assert "dedup_id" in bad["error"]["message"]  # REST's field name, not SQS's
    assert _stats(rest, path)["visible"] == 2

    too_many = rest.post(f"{path}/messages/batch", json={"messages": [{"body": "x"}] * 101})
    assert too_many.status_code == 400
    assert too_many.json()["error"]["code"] == "TooManyEntriesInBatchRequest"
    empty = rest.post(f"{path}/messages/batch", json={"messages": []})
    assert empty.json()["error"]["code"] == "EmptyBatchRequest"
    malformed = rest.post(f"{path}/messages/batch", json={"messages": [{"body": "x"}, {"body": 1}]})
    assert malformed.status_code == 400
    assert "$.messages[1].body" in malformed.json()["error"]["message"]
    small = _queue(rest, "small", MaximumMessageSize="1024")
    long = rest.post(f"{small}/messages/batch", json={"messages": [{"body": "x" * 600}] * 2})
    assert long.status_code == 413
    assert long.json()["error"]["code"] == "BatchRequestTooLong"
    assert _stats(rest, path)["visible"] == 2
    assert _stats(rest, small)["visible"] == 0


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"body": ""}, 400, "InvalidParameterValue"),
        ({"body": "a\x00b"}, 400, "InvalidMessageContents"),
        ({"body": "x", "delay_seconds": 901}, 400, "InvalidParameterValue"),
        ({"body": "x", "delay_level": 19}, 400, "InvalidParameterValue"),
        ({"body": "x", "delay_level": 1, "delay_seconds": 1}, 400, "InvalidParameterValue"),
        ({"body": "x", "dedup_id": "d"}, 400, "InvalidParameterValue"),
        ({"body": "x", "group_id": "g" * 129}, 400, "InvalidParameterValue"),
        (
            {"body": "x", "attributes": {"aws.x": {"data_type": "String", "string_value": "1"}}},
            400,
            "InvalidParameterValue",
        ),
        (
            {"body": "x", "attributes": {"n": {"data_type": "Number", "string_value": "x"}}},
            400,
            "InvalidParameterValue",
        ),
        (
            {"body": "x", "attributes": {"n": {"data_type": "Bogus", "string_value": "1"}}},
            400,
            "InvalidParameterValue",
        ),
        (
            {
                "body": "x",
                "system_attributes": {"Other": {"data_type": "String", "string_value": "1"}},
            },
            400,
            "InvalidParameterValue",
        ),
        ({"body": "x" * 1025}, 413, "MessageTooLong"),
        ({"body": "x", "colour": "blue"}, 400, "InvalidParameterValue"),
        ({}, 400, "MissingParameter"),
    ],
)
def test_a_bad_send_is_refused_and_sends_nothing(
    rest: httpx.Client, body: dict[str, Any], status: int, code: str
) -> None:
    path = _queue(rest, MaximumMessageSize="1024")
    response = rest.post(f"{path}/messages", json=body)
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code
    assert _stats(rest, path) == {"visible": 0, "in_flight": 0, "delayed": 0}


@pytest.mark.parametrize(
    "body",
    [
        {"max_messages": 0},
        {"max_messages": 101},
        {"wait_seconds": 21},
        {"visibility_timeout": 43_201},
        {"visibility_timeout": "5"},
    ],
)
def test_a_bad_receive_is_refused_and_receives_nothing(
    rest: httpx.Client, body: dict[str, Any]
) -> None:
    path = _queue(rest)
    rest.post(f"{path}/messages", json={"body": "x"})
    response = rest.post(f"{path}/messages/receive", json=body)
    assert response.status_code == 400
    assert _stats(rest, path)["visible"] == 1


def test_a_long_poll_is_answered_by_a_send(rest: httpx.Client, gateway: RunningGateway) -> None:
    path = _queue(rest)
    received: list[list[dict[str, Any]]] = []
    poll = threading.Thread(
        target=lambda: received.append(_receive(rest, path, wait_seconds=20)), daemon=True
    )
    poll.start()
    with httpx.Client(base_url=gateway.url, headers=rest.headers) as sender:
        assert sender.post(f"{path}/messages", json={"body": "wake"}).status_code == 201
    poll.join(timeout=30)
    assert [m["body"] for m in received[0]] == ["wake"]


def test_an_empty_long_poll_answers_empty(rest: httpx.Client) -> None:
    path = _queue(rest)
    assert _receive(rest, path, wait_seconds=1) == []


def test_fifo_queues_through_rest(rest: httpx.Client) -> None:
    path = _queue(rest, "jobs.fifo", FifoQueue="true", ContentBasedDeduplication="true")
    sent = [
        rest.post(f"{path}/messages", json={"body": body, "group_id": group}).json()
        for group, body in (("a", "a0"), ("b", "b0"), ("a", "a1"))
    ]
    assert all(len(s["sequence_number"]) == 20 for s in sent)
    assert sent[0]["sequence_number"] < sent[1]["sequence_number"] < sent[2]["sequence_number"]
    duplicate = rest.post(f"{path}/messages", json={"body": "a0", "group_id": "a"}).json()
    assert duplicate["message_id"] == sent[0]["message_id"]

    first = _receive(rest, path, max_messages=2)
    assert [(m["body"], m["group_id"]) for m in first] == [("a0", "a"), ("a1", "a")]
    assert first[0]["sequence_number"] == sent[0]["sequence_number"]
    [b0] = _receive(rest, path, max_messages=10)  # group a is in flight
    assert b0["body"] == "b0"

    no_group = rest.post(f"{path}/messages", json={"body": "x"})
    assert no_group.json()["error"] == {
        "code": "MissingParameter",
        "message": "The request must contain the parameter group_id.",
    }
    for refused in ({"delay_seconds": 5}, {"delay_level": 1}):
        response = rest.post(f"{path}/messages", json={"body": "x", "group_id": "a", **refused})
        assert response.status_code == 400, response.text


def test_a_delay_level_holds_a_message_back_beyond_sqs_limit(
    redis_url: str, tmp_path: Any, make_token: MakeToken
) -> None:
    clock = ManualClock(start_ms=1_900_000_000_000)
    gateway = start_gateway(redis_url, tmp_path / "clocked", clock=clock)
    try:
        with rest_client(gateway.url, make_token()) as rest:
            path = _queue(rest)
            sent = rest.post(f"{path}/messages", json={"body": "in 2 h", "delay_level": 18})
            assert sent.status_code == 201, sent.text
            assert _stats(rest, path) == {"visible": 0, "in_flight": 0, "delayed": 1}
            clock.advance(2 * 3600 * 1000 - 1)
            assert _receive(rest, path) == []
            clock.advance(1)
            [message] = _receive(rest, path)
            assert message["body"] == "in 2 h"
    finally:
        gateway.stop()
