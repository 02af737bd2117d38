from __future__ import annotations

import orjson
import pytest

from control_plane.arns import queue_arn
from control_plane.clock import ManualClock
from control_plane.errors import (
    InvalidAttributeValue,
    InvalidParameterValue,
    QueueDeletedRecently,
    QueueDoesNotExist,
    QueueNameExists,
)
from control_plane.plane import ControlPlane

ACCOUNT = "123456789012"


def _redrive(target: str, count: int = 3) -> dict[str, str]:
    policy = {"deadLetterTargetArn": queue_arn(ACCOUNT, target), "maxReceiveCount": count}
    return {"RedrivePolicy": orjson.dumps(policy).decode()}


async def test_create_is_idempotent_when_attributes_match(plane: ControlPlane) -> None:
    first = await plane.queues.create(ACCOUNT, "orders", {"VisibilityTimeout": "10"})
    again = await plane.queues.create(ACCOUNT, "orders", {"VisibilityTimeout": "010"})
    assert again.stream_id == first.stream_id
    assert again.settings.visibility_timeout_ms == 10_000


async def test_create_with_other_attributes_is_refused(plane: ControlPlane) -> None:
    await plane.queues.create(ACCOUNT, "orders", {"VisibilityTimeout": "10"})
    with pytest.raises(QueueNameExists, match="VisibilityTimeout"):
        await plane.queues.create(ACCOUNT, "orders", {"VisibilityTimeout": "11"})


async def test_a_deleted_name_is_reserved_for_a_minute(
    plane: ControlPlane, clock: ManualClock
) -> None:
    first = await plane.queues.create(ACCOUNT, "orders", {})
    await plane.queues.delete(ACCOUNT, "orders")
    with pytest.raises(QueueDoesNotExist):
        await plane.queues.get(ACCOUNT, "orders")
    clock.advance(59_999)
    with pytest.raises(QueueDeletedRecently):
        await plane.queues.create(ACCOUNT, "orders", {})
    clock.advance(1)
    second = await plane.queues.create(ACCOUNT, "orders", {})
    assert second.stream_id != first.stream_id


async def test_listing_is_by_prefix_and_per_account(plane: ControlPlane) -> None:
    for name in ["b-two", "a-one", "b-one"]:
        await plane.queues.create(ACCOUNT, name, {})
    await plane.queues.create("210987654321", "b-other", {})
    assert await plane.queues.list_names(ACCOUNT) == ["a-one", "b-one", "b-two"]
    assert await plane.queues.list_names(ACCOUNT, "b-") == ["b-one", "b-two"]


async def test_set_attributes_changes_only_what_is_given(
    plane: ControlPlane, clock: ManualClock
) -> None:
    created = await plane.queues.create(ACCOUNT, "q", {"VisibilityTimeout": "10"})
    clock.advance(5_000)
    changed = await plane.queues.set_attributes(ACCOUNT, "q", {"DelaySeconds": "5"})
    assert dict(changed.attributes) == {"VisibilityTimeout": "10", "DelaySeconds": "5"}
    assert changed.modified_ms == created.created_ms + 5_000
    with pytest.raises(InvalidAttributeValue):
        await plane.queues.set_attributes(ACCOUNT, "q", {"DelaySeconds": "901"})
    assert (await plane.queues.get(ACCOUNT, "q")).settings.delay_ms == 5_000


async def test_redrive_policy_needs_an_existing_allowed_target(plane: ControlPlane) -> None:
    with pytest.raises(InvalidParameterValue, match="does not exist"):
        await plane.queues.create(ACCOUNT, "src", _redrive("dlq"))
    deny = {"RedriveAllowPolicy": '{"redrivePermission": "denyAll"}'}
    await plane.queues.create(ACCOUNT, "dlq", deny)
    with pytest.raises(InvalidParameterValue, match="does not allow"):
        await plane.queues.create(ACCOUNT, "src", _redrive("dlq"))
    with pytest.raises(InvalidParameterValue, match="own dead letter"):
        await plane.queues.create(ACCOUNT, "dlq", _redrive("dlq"))
    with pytest.raises(InvalidAttributeValue, match="maxReceiveCount"):
        await plane.queues.create(ACCOUNT, "src", _redrive("dlq", count=1001))


async def test_dead_letter_sources_follow_the_policies(plane: ControlPlane) -> None:
    await plane.queues.create(ACCOUNT, "dlq", {})
    await plane.queues.create(ACCOUNT, "dlq2", {})
    await plane.queues.create(ACCOUNT, "a", _redrive("dlq"))
    await plane.queues.create(ACCOUNT, "b", {})
    await plane.queues.set_attributes(ACCOUNT, "b", _redrive("dlq"))
    assert await plane.queues.dead_letter_sources(ACCOUNT, "dlq") == ["a", "b"]
    await plane.queues.set_attributes(ACCOUNT, "b", _redrive("dlq2"))
    await plane.queues.delete(ACCOUNT, "a")
    assert await plane.queues.dead_letter_sources(ACCOUNT, "dlq") == []
    assert await plane.queues.dead_letter_sources(ACCOUNT, "dlq2") == ["b"]
    await plane.queues.set_attributes(ACCOUNT, "b", {"RedrivePolicy": ""})
    assert await plane.queues.dead_letter_sources(ACCOUNT, "dlq2") == []
    assert (await plane.queues.get(ACCOUNT, "b")).settings.redrive is None


async def test_tags(plane: ControlPlane) -> None:
    await plane.queues.create(ACCOUNT, "q", {}, {"team": "payments"})
    await plane.queues.tag(ACCOUNT, "q", {"env": "prod", "team": "billing"})
    assert await plane.queues.tags(ACCOUNT, "q") == {"env": "prod", "team": "billing"}
    await plane.queues.untag(ACCOUNT, "q", ["env", "absent"])
    assert await plane.queues.tags(ACCOUNT, "q") == {"team": "billing"}
    with pytest.raises(InvalidParameterValue, match=r"Too many tags added for queue q\."):
        await plane.queues.tag(ACCOUNT, "q", {f"k{i}": "v" for i in range(50)})
    with pytest.raises(InvalidParameterValue):
        await plane.queues.tag(ACCOUNT, "q", {"aws:reserved": "v"})
    assert await plane.queues.tags(ACCOUNT, "q") == {"team": "billing"}


async def test_partitions_are_fixed_at_creation(plane: ControlPlane) -> None:
    queue = await plane.queues.create(ACCOUNT, "wide", {"Partitions": " 4"})
    assert queue.partitions == 4
    assert "Partitions" not in queue.attributes  # kept beside them, not among them
    assert queue.all_attributes()["Partitions"] == "4"
    assert (await plane.queues.get(ACCOUNT, "wide")).partitions == 4
    again = await plane.queues.create(ACCOUNT, "wide", {"Partitions": "4"})
    assert again.stream_id == queue.stream_id
    with pytest.raises(QueueNameExists, match="Partitions"):
        await plane.queues.create(ACCOUNT, "wide", {})
    # The same value changes nothing; another is refused and changes nothing.
    await plane.queues.set_attributes(ACCOUNT, "wide", {"Partitions": "4"})
    with pytest.raises(InvalidAttributeValue, match="cannot be changed"):
        await plane.queues.set_attributes(
            ACCOUNT, "wide", {"Partitions": "8", "VisibilityTimeout": "5"}
        )
    unchanged = await plane.queues.get(ACCOUNT, "wide")
    assert (unchanged.partitions, unchanged.settings.visibility_timeout_ms) == (4, 30_000)
    assert (await plane.queues.create(ACCOUNT, "narrow", {})).partitions == 1


@pytest.mark.parametrize("value", ["0", "65", "-1", "two", "1.5", ""])
async def test_partitions_out_of_range_are_refused(plane: ControlPlane, value: str) -> None:
    with pytest.raises(InvalidAttributeValue, match="Partitions"):
        await plane.queues.create(ACCOUNT, "bad", {"Partitions": value})
    with pytest.raises(QueueDoesNotExist):
        await plane.queues.get(ACCOUNT, "bad")
