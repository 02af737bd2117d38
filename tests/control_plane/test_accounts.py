"""The index of accounts with queues or topics (control_plane/accounts.py), on a real
Redis: filled by creations, and once from the catalogues made before it existed."""

from __future__ import annotations

from control_plane import redis_keys
from control_plane.accounts import AccountIndex
from control_plane.plane import ControlPlane


async def test_creating_a_queue_or_a_topic_indexes_its_account(plane: ControlPlane) -> None:
    await plane.queues.create("111111111111", "q", {})
    await plane.topics.create("222222222222", "t", {}, {})
    assert await plane.accounts.all() == ["111111111111", "222222222222"]


async def test_catalogues_from_before_the_index_are_found_once(plane: ControlPlane) -> None:
    # As a deployment that had queues before the index: catalogues, no index, no marker.
    await plane.redis.zadd(redis_keys.queue_catalogue("333333333333"), {"old": 0})
    await plane.redis.zadd(redis_keys.topic_catalogue("444444444444"), {"old": 0})
    await plane.redis.set(redis_keys.queue_metadata("555555555555", "q"), "not a catalogue")
    assert await plane.accounts.all() == ["333333333333", "444444444444"]
    assert await plane.redis.get(redis_keys.ACCOUNTS_INDEXED) == b"1"
    # Marked: a later catalogue without an index entry is not looked for again.
    await plane.redis.zadd(redis_keys.queue_catalogue("666666666666"), {"x": 0})
    assert await AccountIndex(plane.redis).all() == ["333333333333", "444444444444"]


def test_only_catalogue_keys_name_an_account() -> None:
    assert redis_keys.account_of_catalogue("tq:{a:123456789012}:queues") == "123456789012"
    assert redis_keys.account_of_catalogue("tq:{a:123456789012}:topics") == "123456789012"
    for other in ("tq:{a:123456789012}:q:name", "tq:{a:}:queues", "xx:{a:1}:queues", "tq:keys"):
        assert redis_keys.account_of_catalogue(other) is None, other
