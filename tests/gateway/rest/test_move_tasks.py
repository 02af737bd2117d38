"""Message move tasks through REST: redrive a dead-letter queue, list, cancel."""

from __future__ import annotations

import time
from typing import Any

import httpx
import orjson

from tests.conftest import RunningGateway


def _dead_letter_pair(rest: httpx.Client) -> None:
    dlq = rest.post("/v1/queues", json={"name": "orders-dlq"}).json()
    policy = orjson.dumps({"deadLetterTargetArn": dlq["arn"], "maxReceiveCount": 1}).decode()
    created = rest.post(
        "/v1/queues", json={"name": "orders", "attributes": {"RedrivePolicy": policy}}
    )
    assert created.status_code == 201, created.text


def _dead_letter(rest: httpx.Client, count: int) -> None:
    """Sends `count` messages to orders and receives them until they are dead letters."""
    batch = {"messages": [{"body": f"m{i}"} for i in range(count)]}
    assert rest.post("/v1/queues/orders/messages/batch", json=batch).status_code == 200
    receive = {"max_messages": 100, "visibility_timeout": 0}
    assert (
        len(rest.post("/v1/queues/orders/messages/receive", json=receive).json()["messages"])
        == count
    )
    assert rest.post("/v1/queues/orders/messages/receive", json=receive).json() == {"messages": []}
    assert rest.get("/v1/queues/orders-dlq/stats").json()["visible"] == count


def _tasks(rest: httpx.Client) -> list[dict[str, Any]]:
    response = rest.get("/v1/queues/orders-dlq/move-tasks")
    assert response.status_code == 200, response.text
    return list(response.json()["tasks"])


def _wait_until_finished(rest: httpx.Client) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        [task] = _tasks(rest)[:1]
        if task["status"] not in ("RUNNING", "CANCELLING"):
            return task
        time.sleep(0.05)  # polling a background task's progress, not passing time
    raise AssertionError("the move task did not finish")


def test_a_dead_letter_queue_is_redriven_back_to_its_source(rest: httpx.Client) -> None:
    _dead_letter_pair(rest)
    _dead_letter(rest, 3)
    started = rest.post("/v1/queues/orders-dlq/move-tasks", json={})
    assert started.status_code == 201, started.text
    handle = started.json()["task_handle"]
    task = _wait_until_finished(rest)
    assert task["status"] == "COMPLETED"
    assert task["source"] == "orders-dlq"
    assert (task["moved"], task["to_move"]) == (3, 3)
    assert "task_handle" not in task
    assert rest.get("/v1/queues/orders/stats").json()["visible"] == 3
    assert rest.get("/v1/queues/orders-dlq/stats").json()["visible"] == 0
    cancelled = rest.post(f"/v1/move-tasks/{handle}/cancel")
    assert cancelled.status_code == 409
    assert cancelled.json()["error"]["code"] == "MoveTaskNotRunning"


def test_one_task_at_a_time_and_cancel(rest: httpx.Client) -> None:
    _dead_letter_pair(rest)
    _dead_letter(rest, 20)
    started = rest.post("/v1/queues/orders-dlq/move-tasks", json={"max_per_second": 1})
    handle = started.json()["task_handle"]
    second = rest.post("/v1/queues/orders-dlq/move-tasks", json={"destination": "orders"})
    assert second.status_code == 409, second.text
    assert second.json()["error"]["code"] == "MoveTaskRunning"
    [running] = _tasks(rest)
    assert running["task_handle"] == handle
    assert running["max_per_second"] == 1
    cancelled = rest.post(f"/v1/move-tasks/{handle}/cancel")
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["status"] == "CANCELLING"
    assert _wait_until_finished(rest)["status"] == "CANCELLED"


def test_refusals(rest: httpx.Client, gateway: RunningGateway, rest_for: Any) -> None:
    _dead_letter_pair(rest)
    not_a_dlq = rest.post("/v1/queues/orders/move-tasks", json={})
    assert not_a_dlq.status_code == 400
    assert not_a_dlq.json()["error"]["code"] == "InvalidParameterValue"
    no_destination = rest.post("/v1/queues/orders-dlq/move-tasks", json={"destination": "nope"})
    assert no_destination.status_code == 404
    bad_rate = rest.post("/v1/queues/orders-dlq/move-tasks", json={"max_per_second": 501})
    assert bad_rate.status_code == 400
    assert _tasks(rest) == []
    assert rest.post("/v1/move-tasks/garbage/cancel").status_code == 404
    _dead_letter(rest, 1)
    handle = rest.post("/v1/queues/orders-dlq/move-tasks", json={"max_per_second": 1}).json()[
        "task_handle"
    ]
    other = rest_for("111122223333")
    foreign = other.post(f"/v1/move-tasks/{handle}/cancel")
    assert foreign.status_code == 404
    assert foreign.json()["error"]["code"] == "ResourceNotFoundException"
