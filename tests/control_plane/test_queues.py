from __future__ import annotations

import pytest

from control_plane.errors import QueueDoesNotExist, QueueNameExists
from control_plane.plane import ControlPlane

ACCOUNT = "123456789012"


async def test_create_is_idempotent_when_attributes_match(plane: ControlPlane) -> None:
    first = await plane.queues.create(ACCOUNT, "orders", {"VisibilityTimeout": "10"})
    again = await plane.queues.create(ACCOUNT, "orders", {"VisibilityTimeout": "10"})
    assert again.stream_id == first.stream_id
    assert again.visibility_timeout_ms == 10_000


async def test_create_with_other_attributes_is_refused(plane: ControlPlane) -> None:
    await plane.queues.create(ACCOUNT, "orders", {"VisibilityTimeout": "10"})
    with pytest.raises(QueueNameExists, match="VisibilityTimeout"):
        await plane.queues.create(ACCOUNT, "orders", {"VisibilityTimeout": "11"})


async def test_a_recreated_queue_gets_a_new_stream(plane: ControlPlane) -> None:
    first = await plane.queues.create(ACCOUNT, "orders", {})
    await plane.queues.delete(ACCOUNT, "orders")
    with pytest.raises(QueueDoesNotExist):
        await plane.queues.get(ACCOUNT, "orders")
    second = await plane.queues.create(ACCOUNT, "orders", {})
    assert second.stream_id != first.stream_id


async def test_listing_is_by_prefix_and_per_account(plane: ControlPlane) -> None:
    for name in ["b-two", "a-one", "b-one"]:
        await plane.queues.create(ACCOUNT, name, {})
    await plane.queues.create("210987654321", "b-other", {})
    assert await plane.queues.list_names(ACCOUNT) == ["a-one", "b-one", "b-two"]
    assert await plane.queues.list_names(ACCOUNT, "b-") == ["b-one", "b-two"]
