"""Pull subscriptions on the REST API against a real gateway: a topic's log received from
with the queue verbs (receive, delete, visibility, dead-letter queue), filter policies,
and the errors of /v1/subscriptions."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest

from tests.conftest import RunningGateway

WAIT = {"max_messages": 10, "wait_seconds": 5}


def _error(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


def _pull(
    rest: httpx.Client, topic: str, name: str, attributes: dict[str, str] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"protocol": "pull", "endpoint": name}
    if attributes is not None:
        body["attributes"] = attributes
    response = rest.post(f"/v1/topics/{topic}/subscriptions", json=body)
    assert response.status_code == 201, response.text
    subscription: dict[str, Any] = response.json()
    return subscription


def _publish(rest: httpx.Client, topic: str, *bodies: str, **attributes: str) -> None:
    values = {k: {"data_type": "String", "string_value": v} for k, v in attributes.items()}
    messages = [{"body": b, **({"attributes": values} if values else {})} for b in bodies]
    results = rest.post(f"/v1/topics/{topic}/messages/batch", json={"messages": messages})
    assert all("message_id" in r for r in results.json()["results"]), results.text


def _receive(rest: httpx.Client, subscription: dict[str, Any], **request: int) -> list[Any]:
    response = rest.post(f"/v1/subscriptions/{subscription['id']}/receive", json=request or WAIT)
    assert response.status_code == 200, response.text
    messages: list[Any] = response.json()["messages"]
    return messages


def _receive_all(rest: httpx.Client, subscription: dict[str, Any], count: int) -> list[Any]:
    received: list[Any] = []
    for _ in range(count + 5):
        received += _receive(rest, subscription)
        if len(received) >= count:
            break
    assert len(received) == count, received
    return received


@pytest.fixture
def topic(rest: httpx.Client) -> str:
    rest.post("/v1/topics", json={"name": "news"})
    return "news"


def test_receive_delete_and_visibility_as_on_a_queue(rest: httpx.Client, topic: str) -> None:
    _publish(rest, topic, "before")  # the subscription starts at the log's end
    subscription = _pull(rest, topic, "readers")
    assert subscription["attributes"]["VisibilityTimeout"] == "30"
    assert subscription["stats"] == {"visible": 0, "in_flight": 0}
    rest.post(
        f"/v1/topics/{topic}/messages",
        json={
            "body": "one",
            "subject": "first",
            "attributes": {"kind": {"data_type": "String", "string_value": "note"}},
        },
    )
    _publish(rest, topic, "two", "three")
    received = _receive_all(rest, subscription, 3)
    assert [m["body"] for m in received] == ["one", "two", "three"]
    assert received[0]["system_attributes"] == {"Subject": "first"}
    assert received[0]["attributes"] == {"kind": {"data_type": "String", "string_value": "note"}}
    stats = rest.get(f"/v1/subscriptions/{subscription['id']}").json()["stats"]
    assert stats == {"visible": 0, "in_flight": 3}

    handles = [m["receipt_handle"] for m in received]
    deleted = rest.post(
        f"/v1/subscriptions/{subscription['id']}/delete", json={"receipt_handles": handles[:2]}
    ).json()["results"]
    assert deleted == [{"index": 0}, {"index": 1}]
    changed = rest.post(
        f"/v1/subscriptions/{subscription['id']}/visibility",
        json={"entries": [{"receipt_handle": handles[2], "visibility_timeout": 0}]},
    ).json()["results"]
    assert changed == [{"index": 0}]
    [again] = _receive(rest, subscription)
    assert (again["body"], again["receive_count"]) == ("three", 2)
    # The old receipt deletes nothing now, and says so as SQS does: not at all.
    stale = rest.post(
        f"/v1/subscriptions/{subscription['id']}/delete", json={"receipt_handles": [handles[2]]}
    ).json()["results"]
    assert stale == [{"index": 0}]
    assert rest.get(f"/v1/subscriptions/{subscription['id']}").json()["stats"]["in_flight"] == 1


def test_each_subscription_gets_every_message_on_its_own(rest: httpx.Client, topic: str) -> None:
    first, second = _pull(rest, topic, "first"), _pull(rest, topic, "second")
    assert _pull(rest, topic, "first")["id"] == first["id"]  # the same name: the same one
    _publish(rest, topic, "a", "b")
    one = _receive_all(rest, first, 2)
    rest.post(
        f"/v1/subscriptions/{first['id']}/delete",
        json={"receipt_handles": [m["receipt_handle"] for m in one]},
    )
    assert [m["body"] for m in _receive_all(rest, second, 2)] == ["a", "b"]
    # A receipt is its subscription's own.
    foreign = rest.post(
        f"/v1/subscriptions/{second['id']}/delete",
        json={"receipt_handles": [one[0]["receipt_handle"]]},
    ).json()["results"]
    assert foreign[0]["error"]["code"] == "ReceiptHandleIsInvalid"


def test_messages_the_filter_policy_does_not_match_are_never_delivered(
    rest: httpx.Client, topic: str
) -> None:
    subscription = _pull(
        rest,
        topic,
        "red-only",
        {"FilterPolicy": json.dumps({"colour": ["red"]}), "FilterPolicyScope": "MessageAttributes"},
    )
    for i in range(25):
        _publish(rest, topic, f"m{i}", colour="red" if i % 5 == 4 else "blue")
    received = _receive_all(rest, subscription, 5)
    assert [m["body"] for m in received] == ["m4", "m9", "m14", "m19", "m24"]
    assert _receive(rest, subscription, wait_seconds=0) == []
    counted = rest.get(f"/v1/subscriptions/{subscription['id']}").json()["stats"]
    assert counted == {"visible": 0, "in_flight": 5}


def test_a_message_received_too_often_goes_to_the_dead_letter_queue(
    rest: httpx.Client, topic: str
) -> None:
    dlq = rest.post("/v1/queues", json={"name": "news-dlq"}).json()
    policy = json.dumps({"deadLetterTargetArn": dlq["arn"], "maxReceiveCount": 2})
    subscription = _pull(rest, topic, "flaky", {"RedrivePolicy": policy})
    _publish(rest, topic, "poison")
    for attempt in (1, 2):
        [message] = _receive(
            rest, subscription, max_messages=1, wait_seconds=5, visibility_timeout=0
        )
        assert message["receive_count"] == attempt
    assert _receive(rest, subscription, wait_seconds=1, visibility_timeout=0) == []
    [dead] = rest.post("/v1/queues/news-dlq/messages/receive", json={"wait_seconds": 5}).json()[
        "messages"
    ]
    assert dead["body"] == "poison"
    assert dead["system_attributes"]["DeadLetterQueueSourceArn"] == subscription["arn"]


def test_pull_attributes_are_checked_and_changed(rest: httpx.Client, topic: str) -> None:
    subscription = _pull(rest, topic, "tuned", {"VisibilityTimeout": "60"})
    path = f"/v1/subscriptions/{subscription['id']}"
    assert subscription["attributes"]["VisibilityTimeout"] == "60"
    assert "RawMessageDelivery" not in subscription["attributes"]
    dlq_arn = rest.post("/v1/queues", json={"name": "dlq"}).json()["arn"]
    fifo_arn = dlq_arn + ".fifo"
    refused = [
        {"VisibilityTimeout": "43201"},
        {"VisibilityTimeout": "soon"},
        {"RawMessageDelivery": "true"},
        {"RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn})},
        {"RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 0})},
        {"RedrivePolicy": json.dumps({"deadLetterTargetArn": fifo_arn, "maxReceiveCount": 3})},
        {"VisibilityTimeout": "5", "FilterPolicy": "{"},
    ]
    for attributes in refused:
        response = rest.patch(path, json={"attributes": attributes})
        assert _error(response) == (400, "InvalidParameter"), attributes
    assert rest.get(path).json()["attributes"]["VisibilityTimeout"] == "60"
    redrive = {"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "4"}
    changed = rest.patch(
        path, json={"attributes": {"VisibilityTimeout": "", "RedrivePolicy": json.dumps(redrive)}}
    ).json()["attributes"]
    assert changed["VisibilityTimeout"] == "30"
    assert json.loads(changed["RedrivePolicy"]) == {**redrive, "maxReceiveCount": 4}


def test_what_is_not_there_is_404_and_what_is_not_pulled_is_400(
    rest: httpx.Client, topic: str, gateway: RunningGateway
) -> None:
    for path in (f"/v1/subscriptions/{uuid.uuid4()}", "/v1/subscriptions/nonsense"):
        assert _error(rest.get(path)) == (404, "NotFound")
        assert _error(rest.post(path + "/receive", json={})) == (404, "NotFound")
        assert _error(rest.post(path + "/seek", json={"offset": 0})) == (404, "NotFound")
    queue = rest.post("/v1/queues", json={"name": "copies"}).json()
    pushed = rest.post(
        f"/v1/topics/{topic}/subscriptions", json={"protocol": "sqs", "endpoint": queue["arn"]}
    ).json()
    for verb, body in (
        ("receive", {}),
        ("delete", {"receipt_handles": ["x"]}),
        ("visibility", {"entries": [{"receipt_handle": "x", "visibility_timeout": 0}]}),
        ("seek", {"offset": 0}),
    ):
        response = rest.post(f"/v1/subscriptions/{pushed['id']}/{verb}", json=body)
        assert _error(response) == (400, "InvalidParameterValue"), verb
    subscription = _pull(rest, topic, "gone")
    assert rest.delete(f"/v1/subscriptions/{subscription['id']}").status_code == 204
    assert _error(rest.get(f"/v1/subscriptions/{subscription['id']}")) == (404, "NotFound")
