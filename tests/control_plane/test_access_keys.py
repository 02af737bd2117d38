"""Access keys in Redis: issued, found, listed and revoked; secrets sealed, never stored plain."""

from __future__ import annotations

import hashlib
import re
from collections.abc import AsyncIterator

import pytest

from control_plane.access_keys import AccessKeys, generate_secret, key_hash
from control_plane.clock import ManualClock
from control_plane.errors import InvalidAccessKey, SecretUnreadable
from control_plane.redis_client import RedisClient, open_redis
from control_plane.secret_box import SecretBox, new_master_key

ACCOUNT_A = "111122223333"
ACCOUNT_B = "444455556666"


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[RedisClient]:
    client = open_redis(redis_url)
    yield client
    await client.aclose()


@pytest.fixture
def master_key() -> bytes:
    return new_master_key()


@pytest.fixture
def access_keys(redis: RedisClient, clock: ManualClock, master_key: bytes) -> AccessKeys:
    return AccessKeys(redis, clock, SecretBox(master_key))


async def test_a_generated_key_looks_like_an_aws_key_and_is_found_by_its_id(
    access_keys: AccessKeys, clock: ManualClock
) -> None:
    issued = await access_keys.create(ACCOUNT_A)
    assert re.fullmatch(r"TQ[A-Z2-7]{18}", issued.key.access_key_id)
    assert len(issued.secret_access_key) == 40
    assert issued.key.account_id == ACCOUNT_A
    assert issued.key.created_ms == clock.now_ms()
    assert issued.secret_access_key not in repr(issued)

    found = await access_keys.get(issued.key.access_key_id)
    assert found == issued
    assert await access_keys.get("TQNOSUCHKEY000000000") is None
    assert await access_keys.get("not/a key id") is None


async def test_a_given_id_and_secret_are_imported_once(access_keys: AccessKeys) -> None:
    issued = await access_keys.create(ACCOUNT_A, "AKIAIOSFODNN7EXAMPLE", "s3cret/with+chars")
    assert issued.key.fingerprint == hashlib.sha256(b"s3cret/with+chars").hexdigest()
    found = await access_keys.get("AKIAIOSFODNN7EXAMPLE")
    assert found is not None
    assert found.secret_access_key == "s3cret/with+chars"

    with pytest.raises(InvalidAccessKey, match="already exists"):
        await access_keys.create(ACCOUNT_B, "AKIAIOSFODNN7EXAMPLE", "another-secret")
    found = await access_keys.get("AKIAIOSFODNN7EXAMPLE")
    assert found is not None
    assert (found.key.account_id, found.secret_access_key) == (ACCOUNT_A, "s3cret/with+chars")


@pytest.mark.parametrize(
    ("account", "key_id", "secret"),
    [
        ("12345", None, None),
        ("12345678901a", None, None),
        (ACCOUNT_A, "has/slash", None),
        (ACCOUNT_A, "", None),
        (ACCOUNT_A, "x" * 129, None),
        (ACCOUNT_A, None, "has space"),
        (ACCOUNT_A, None, ""),
        (ACCOUNT_A, None, "é-not-ascii"),
    ],
)
async def test_malformed_keys_are_refused_and_store_nothing(
    access_keys: AccessKeys,
    redis: RedisClient,
    account: str,
    key_id: str | None,
    secret: str | None,
) -> None:
    with pytest.raises(InvalidAccessKey):
        await access_keys.create(account, key_id, secret)
    assert await redis.keys("tq:{auth}:*") == []


async def test_keys_are_listed_per_account_and_all_together(access_keys: AccessKeys) -> None:
    a1 = await access_keys.create(ACCOUNT_A, "KEYA1", "secret-a1")
    a2 = await access_keys.create(ACCOUNT_A, "KEYA2", "secret-a2")
    b1 = await access_keys.create(ACCOUNT_B, "KEYB1", "secret-b1")

    assert await access_keys.list_keys(ACCOUNT_A) == [a1.key, a2.key]
    assert await access_keys.list_keys(ACCOUNT_B) == [b1.key]
    assert await access_keys.list_keys("999999999999") == []
    assert await access_keys.list_keys() == [a1.key, a2.key, b1.key]


async def test_a_revoked_key_is_gone_at_once(access_keys: AccessKeys) -> None:
    kept = await access_keys.create(ACCOUNT_A, "KEEP", "secret-keep")
    gone = await access_keys.create(ACCOUNT_A, "GONE", "secret-gone")

    assert await access_keys.revoke("GONE") == gone.key
    assert await access_keys.get("GONE") is None
    assert await access_keys.list_keys(ACCOUNT_A) == [kept.key]
    assert await access_keys.list_keys() == [kept.key]
    assert await access_keys.revoke("GONE") is None
    assert await access_keys.revoke("NEVER") is None


async def test_secrets_are_sealed_and_never_stored_in_plain(
    access_keys: AccessKeys, redis: RedisClient
) -> None:
    secret = "plain-secret-that-must-not-appear"
    await access_keys.create(ACCOUNT_A, "SEALED", secret)
    stored = b""
    for name in await redis.keys("*"):
        kind = await redis.type(name)
        if kind == b"hash":
            stored += b"".join(k + v for k, v in (await redis.hgetall(name)).items())
        elif kind == b"zset":
            stored += b"".join(await redis.zrange(name, 0, -1))
        elif kind == b"string":
            stored += await redis.get(name) or b""
    assert secret.encode() not in stored
    fields = await redis.hgetall(key_hash("SEALED"))
    assert set(fields) == {b"account", b"created_ms", b"secret", b"fingerprint"}
    assert fields[b"fingerprint"] == hashlib.sha256(secret.encode()).hexdigest().encode()


async def test_another_master_key_cannot_read_the_secrets(
    access_keys: AccessKeys, redis: RedisClient, clock: ManualClock
) -> None:
    await access_keys.create(ACCOUNT_A, "MINE", "secret-mine")
    others = AccessKeys(redis, clock, SecretBox(new_master_key()))
    with pytest.raises(SecretUnreadable):
        await others.get("MINE")


async def test_a_sealed_secret_moved_to_another_key_id_does_not_open(
    access_keys: AccessKeys, redis: RedisClient
) -> None:
    await access_keys.create(ACCOUNT_A, "VICTIM", "secret-victim")
    await access_keys.create(ACCOUNT_B, "ATTACKER", "secret-attacker")
    victims_sealed = await redis.hget(key_hash("VICTIM"), "secret")
    assert victims_sealed is not None
    await redis.hset(key_hash("ATTACKER"), "secret", victims_sealed)
    with pytest.raises(SecretUnreadable):
        await access_keys.get("ATTACKER")


async def test_put_creates_keeps_or_replaces(access_keys: AccessKeys, clock: ManualClock) -> None:
    first = await access_keys.put(ACCOUNT_A, "PUT", "secret-1")
    clock.advance(1000)
    assert await access_keys.put(ACCOUNT_A, "PUT", "secret-1") == first  # unchanged, kept

    replaced = await access_keys.put(ACCOUNT_B, "PUT", "secret-2")
    assert replaced.created_ms == first.created_ms + 1000
    found = await access_keys.get("PUT")
    assert found is not None
    assert (found.key.account_id, found.secret_access_key) == (ACCOUNT_B, "secret-2")
    assert await access_keys.list_keys(ACCOUNT_A) == []
    assert await access_keys.list_keys(ACCOUNT_B) == [replaced]


async def test_put_overwrites_a_secret_sealed_under_a_lost_master_key(
    access_keys: AccessKeys, redis: RedisClient, clock: ManualClock
) -> None:
    await access_keys.put(ACCOUNT_A, "ADMIN", "old-secret")
    fresh = AccessKeys(redis, clock, SecretBox(new_master_key()))
    await fresh.put(ACCOUNT_A, "ADMIN", "old-secret")
    found = await fresh.get("ADMIN")
    assert found is not None
    assert found.secret_access_key == "old-secret"


async def test_a_new_admin_key_retires_the_previous_one(access_keys: AccessKeys) -> None:
    await access_keys.put_admin(ACCOUNT_A, "ADMIN1", "secret-1")
    await access_keys.put_admin(ACCOUNT_A, "ADMIN1", "secret-1")  # a restart: unchanged
    assert await access_keys.admin_key_id() == "ADMIN1"
    assert await access_keys.get("ADMIN1") is not None

    await access_keys.put_admin(ACCOUNT_A, "ADMIN2", "secret-2")
    assert await access_keys.admin_key_id() == "ADMIN2"
    assert await access_keys.get("ADMIN1") is None
    assert [k.access_key_id for k in await access_keys.list_keys()] == ["ADMIN2"]


def test_generated_secrets_never_begin_with_a_dash() -> None:
    # One URL-safe base64 character in 64 is "-": 10 000 secrets would show one hundred
    # or so, which `--secret-access-key -x...` on a command line takes for an option.
    made = [generate_secret() for _ in range(10_000)]
    assert not [secret for secret in made if secret.startswith("-")]
    assert all(len(secret) == 40 for secret in made)
    assert len(set(made)) == len(made)
