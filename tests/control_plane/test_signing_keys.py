"""The SNS signing key: made once per deployment, shared by every gateway, sealed at rest."""

from __future__ import annotations

import asyncio
import base64
import datetime
from collections.abc import AsyncIterator

import orjson
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import NameOID

from control_plane.errors import SecretUnreadable
from control_plane.redis_client import RedisClient, open_redis
from control_plane.redis_keys import SNS_SIGNING_KEY
from control_plane.secret_box import new_master_key
from control_plane.signing_keys import SigningKey, generate, load_or_create

MASTER_KEY = bytes(range(32))


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[RedisClient]:
    client = open_redis(redis_url)
    yield client
    await client.aclose()


def _same_key(a: SigningKey, b: SigningKey) -> bool:
    return (
        a.key_id == b.key_id
        and a.certificate_pem == b.certificate_pem
        and a.private_key.private_numbers() == b.private_key.private_numbers()
    )


async def test_the_key_is_made_once_and_read_back_by_the_next_load(redis: RedisClient) -> None:
    first = await load_or_create(redis, MASTER_KEY)
    second = await load_or_create(redis, MASTER_KEY)
    assert _same_key(first, second)
    # The id is the certificate's: 32 hex digits, like SNS's own certificate names.
    assert len(first.key_id) == 32
    assert int(first.key_id, 16) >= 0
    assert "private_key" not in repr(first)


async def test_concurrent_first_loads_all_end_up_with_one_key(redis_url: str) -> None:
    clients = [open_redis(redis_url) for _ in range(6)]
    try:
        keys = await asyncio.gather(*(load_or_create(c, MASTER_KEY) for c in clients))
    finally:
        for client in clients:
            await client.aclose()
    assert len({key.key_id for key in keys}) == 1
    assert all(_same_key(keys[0], key) for key in keys)
    redis = open_redis(redis_url)
    try:
        assert _same_key(await load_or_create(redis, MASTER_KEY), keys[0])
    finally:
        await redis.aclose()


async def test_the_private_key_is_stored_sealed_never_plain(redis: RedisClient) -> None:
    key = await load_or_create(redis, MASTER_KEY)
    stored = await redis.get(SNS_SIGNING_KEY)
    assert stored is not None
    document = orjson.loads(stored)
    assert document["certificate"].encode() == key.certificate_pem
    private_der = key.private_key.private_bytes(
        serialization.Encoding.DER,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    sealed = base64.b64decode(document["private_key"])
    assert private_der not in sealed
    assert private_der[40:80] not in stored


async def test_another_master_key_cannot_read_the_stored_key(redis: RedisClient) -> None:
    await load_or_create(redis, MASTER_KEY)
    with pytest.raises(SecretUnreadable):
        await load_or_create(redis, new_master_key())


async def test_a_sealed_key_moved_beside_another_certificate_does_not_open(
    redis: RedisClient,
) -> None:
    await load_or_create(redis, MASTER_KEY)
    stored = await redis.get(SNS_SIGNING_KEY)
    assert stored is not None
    document = orjson.loads(stored)
    document["certificate"] = generate().certificate_pem.decode()
    await redis.set(SNS_SIGNING_KEY, orjson.dumps(document))
    with pytest.raises(SecretUnreadable):
        await load_or_create(redis, MASTER_KEY)


@pytest.mark.parametrize(
    "stored",
    [
        b"not json",
        b'{"v": 1}',
        b'{"v": 2, "certificate": "", "private_key": ""}',
        b'{"v": 1, "certificate": "-----BEGIN CERTIFICATE-----", "private_key": "AAAA"}',
    ],
)
async def test_a_damaged_stored_key_is_reported_not_replaced(
    redis: RedisClient, stored: bytes
) -> None:
    await redis.set(SNS_SIGNING_KEY, stored)
    with pytest.raises(SecretUnreadable, match="damaged"):
        await load_or_create(redis, MASTER_KEY)
    assert await redis.get(SNS_SIGNING_KEY) == stored


def test_the_certificate_is_a_ten_year_self_signed_rsa_2048_certificate() -> None:
    now = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
    key = generate(now)
    certificate = x509.load_pem_x509_certificate(key.certificate_pem)
    public_key = certificate.public_key()
    assert isinstance(public_key, rsa.RSAPublicKey)
    assert public_key.key_size == 2048
    assert public_key.public_numbers() == key.private_key.public_key().public_numbers()
    common_name = certificate.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    assert [attribute.value for attribute in common_name] == ["sns.tidemq.local"]
    assert certificate.issuer == certificate.subject
    assert certificate.not_valid_before_utc <= now
    assert certificate.not_valid_after_utc - now == datetime.timedelta(days=3650)
    # Self-signed: the certificate's own key verifies its signature.
    assert certificate.signature_hash_algorithm is not None
    public_key.verify(
        certificate.signature,
        certificate.tbs_certificate_bytes,
        padding.PKCS1v15(),
        certificate.signature_hash_algorithm,
    )
    assert isinstance(certificate.signature_hash_algorithm, hashes.SHA256)
    assert generate(now).key_id != key.key_id
