"""Access keys: an id and a secret, each scoped to one account, kept in Redis.

Requests are signed with AWS Signature V4, whose verification needs the secret itself, so
each secret is stored sealed (AES-256-GCM, the key id as associated data) under a master
key held outside Redis (control_plane/secret_box.py), beside a SHA-256 fingerprint for
display. The plaintext is never stored and never logged.

Keys, all under the hash tag `{auth}` so every script touches one slot (the set of keys
is small, and every gateway reads it):

    tq:{auth}:key:<key id>       hash: account, created_ms, secret (sealed), fingerprint
    tq:{auth}:keys               sorted set of every key id (score 0: lexicographic order)
    tq:{auth}:account:<account>  sorted set of the account's key ids
    tq:{auth}:admin              string: the id of the embedded launcher's admin key

A gateway keeps the keys it looked up in its metadata cache (control_plane/
metadata_cache.py): a signed request costs no Redis round trip for its key. Revoking or
replacing a key publishes the invalidation from its script and waits until every
gateway applied it, so a revoked key is still refused by every gateway from the next
request on. Unknown key ids are not cached.
"""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field

from control_plane import timed_scripts
from control_plane.access_key_scripts import CREATE_KEY, PUT_KEY, REVOKE_KEY
from control_plane.acked_pubsub import new_nonce
from control_plane.clock import Clock
from control_plane.errors import InvalidAccessKey, SecretUnreadable, redis_boundary
from control_plane.metadata_cache import MetadataCache, receivers_if_changed, wait_applied
from control_plane.redis_client import RedisClient
from control_plane.redis_values import as_bytes, as_text
from control_plane.secret_box import SecretBox, fingerprint

log = logging.getLogger(__name__)

DEFAULT_ACCOUNT_ID = "123456789012"

_PREFIX = "tq:{auth}"
ALL_KEYS = f"{_PREFIX}:keys"
ADMIN_KEY = f"{_PREFIX}:admin"

_ACCOUNT_ID = re.compile(r"^[0-9]{12}\Z")
# AWS's own constraint is [\w]{16,128}; shorter ids are accepted so that the throwaway
# credentials of local setups ("test", "x") can be imported unchanged.
_KEY_ID = re.compile(r"^[A-Za-z0-9_]{1,128}\Z")
_SECRET = re.compile(r"^[\x21-\x7e]{1,128}\Z")  # printable ASCII, no spaces
_GENERATED_ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"  # base32, as AWS's own ids


def key_hash(access_key_id: str) -> str:
    return f"{_PREFIX}:key:{access_key_id}"


def account_keys(account_id: str) -> str:
    return f"{_PREFIX}:account:{account_id}"


_RACE_RETRIES = 3


@dataclass(frozen=True, slots=True)
class AccessKey:
    """What may be shown of a key: never its secret."""

    access_key_id: str
    account_id: str
    created_ms: int
    fingerprint: str  # SHA-256 of the secret, hex


@dataclass(frozen=True, slots=True)
class IssuedKey:
    """A key with its secret: what `create` hands out once, and what verification needs."""

    key: AccessKey
    secret_access_key: str = field(repr=False)


def generate_key_id() -> str:
    """An AWS-style id: 20 characters, "TQ" then 18 of the base32 alphabet."""
    return "TQ" + "".join(secrets.choice(_GENERATED_ID_ALPHABET) for _ in range(18))


def generate_secret() -> str:
    """40 characters of URL-safe base64 (240 random bits), like AWS's 40-character secrets,
    never beginning with "-": command lines (`--secret-access-key -x...`, the AWS CLI's
    `aws configure set`) would take such a secret for an option."""
    while True:
        secret = secrets.token_urlsafe(30)
        if not secret.startswith("-"):
            return secret


class AccessKeys:
    """The access keys of every account."""

    def __init__(
        self, redis: RedisClient, clock: Clock, box: SecretBox, cache: MetadataCache | None = None
    ) -> None:
        """`cache`: the gateway's metadata cache; without one every lookup reads Redis."""
        self._redis = redis
        self._clock = clock
        self._box = box
        self._cache = cache or MetadataCache()
        self._create = timed_scripts.register(redis, "create_key", CREATE_KEY)
        self._put = timed_scripts.register(redis, "put_key", PUT_KEY)
        self._revoke = timed_scripts.register(redis, "revoke_key", REVOKE_KEY)

    async def create(
        self,
        account_id: str = DEFAULT_ACCOUNT_ID,
        access_key_id: str | None = None,
        secret_access_key: str | None = None,
    ) -> IssuedKey:
        """A new key for the account: the given id and secret (to import an existing
        client configuration) or generated ones. InvalidAccessKey if the id is taken."""
        issued = self._issue(account_id, access_key_id, secret_access_key)
        key = issued.key
        with redis_boundary():
            created = await self._create(
                keys=[key_hash(key.access_key_id), ALL_KEYS, account_keys(account_id)],
                args=self._fields(issued),
            )
        if not created:
            raise InvalidAccessKey(f"an access key with id {key.access_key_id} already exists")
        log.info("access key %s created for account %s", key.access_key_id, account_id)
        return issued

    async def put(self, account_id: str, access_key_id: str, secret_access_key: str) -> AccessKey:
        """Makes the key exist with this account and secret: created, replaced, or left as
        it is when it already matches (then its creation time is kept)."""
        try:
            current = await self.get(access_key_id)
        except SecretUnreadable:
            current = None  # sealed under a master key since replaced: overwrite it
        if (
            current is not None
            and current.key.account_id == account_id
            and secrets.compare_digest(
                current.secret_access_key.encode(), secret_access_key.encode()
            )
        ):
            return current.key
        issued = self._issue(account_id, access_key_id, secret_access_key)
        for _ in range(_RACE_RETRIES):
            read_account = await self._account_of(access_key_id)
            nonce = new_nonce()
            with redis_boundary():
                receivers = receivers_if_changed(
                    await self._put(
                        keys=[
                            key_hash(access_key_id),
                            ALL_KEYS,
                            account_keys(account_id),
                            account_keys(read_account) if read_account else ALL_KEYS,
                        ],
                        args=[*self._fields(issued), read_account or "", nonce],
                    )
                )
                if receivers is not None:
                    await self._invalidated(access_key_id, nonce, receivers)
            if receivers is not None:
                log.info("access key %s set for account %s", access_key_id, account_id)
                return issued.key
        raise InvalidAccessKey(f"access key {access_key_id} is being changed concurrently")

    async def put_admin(
        self, account_id: str, access_key_id: str, secret_access_key: str
    ) -> AccessKey:
        """Makes this the deployment's admin key; an earlier admin key of another id is
        revoked, so changing the configured admin credentials retires the old ones."""
        previous = await self.admin_key_id()
        if previous is not None and previous != access_key_id:
            await self.revoke(previous)
        key = await self.put(account_id, access_key_id, secret_access_key)
        with redis_boundary():
            await self._redis.set(ADMIN_KEY, access_key_id)
        return key

    async def admin_key_id(self) -> str | None:
        """The id `put_admin` registered last, if any."""
        with redis_boundary():
            key_id = await self._redis.get(ADMIN_KEY)
        return None if key_id is None else as_text(key_id)

    async def get(self, access_key_id: str) -> IssuedKey | None:
        """The key with its secret, for verifying a signature; None if there is none.

        SecretUnreadable if the secret was sealed under another master key.
        """
        if not _KEY_ID.match(access_key_id):
            return None
        name = key_hash(access_key_id)
        cached = self._cache.get(name)
        if isinstance(cached, IssuedKey):
            return cached
        generation = self._cache.generation
        with redis_boundary():
            fields = await self._redis.hgetall(name)
        if not fields:
            return None
        secret = self._box.open(as_bytes(fields[b"secret"]), access_key_id.encode())
        found = IssuedKey(_access_key(access_key_id, fields), secret.decode())
        self._cache.put(name, found, generation)
        return found

    async def list_keys(self, account_id: str | None = None) -> list[AccessKey]:
        """The keys of one account, or of all accounts, ordered by id."""
        index = ALL_KEYS if account_id is None else account_keys(account_id)
        with redis_boundary():
            members = await self._redis.zrangebylex(index, b"-", b"+")
            ids = [as_text(m) for m in members]
            async with self._redis.pipeline(transaction=False) as pipe:
                for key_id in ids:
                    pipe.hgetall(key_hash(key_id))
                replies = await pipe.execute()
        # A key revoked between the two reads has an empty hash: it is left out.
        return [_access_key(i, f) for i, f in zip(ids, replies, strict=True) if f]

    async def revoke(self, access_key_id: str) -> AccessKey | None:
        """Removes the key; None if there was none. Refused from the next request on."""
        for _ in range(_RACE_RETRIES):
            with redis_boundary():
                fields = await self._redis.hgetall(key_hash(access_key_id))
            if not fields:
                return None
            key = _access_key(access_key_id, fields)
            nonce = new_nonce()
            with redis_boundary():
                revoked = await self._revoke(
                    keys=[key_hash(access_key_id), ALL_KEYS, account_keys(key.account_id)],
                    args=[access_key_id, key.account_id, nonce],
                )
                receivers = receivers_if_changed(revoked)
                if receivers is not None:
                    await self._invalidated(access_key_id, nonce, receivers)
            if receivers is not None:
                log.info("access key %s of account %s revoked", access_key_id, key.account_id)
                return key
            if revoked == 0:
                return None
        raise InvalidAccessKey(f"access key {access_key_id} is being changed concurrently")

    async def _invalidated(self, access_key_id: str, nonce: str, receivers: int) -> None:
        """Returns once every gateway dropped its cached copy of the key (this one at once)."""
        self._cache.invalidate(key_hash(access_key_id))
        await wait_applied(self._redis, nonce, receivers)

    def _issue(
        self, account_id: str, access_key_id: str | None, secret_access_key: str | None
    ) -> IssuedKey:
        key_id = generate_key_id() if access_key_id is None else access_key_id
        secret = generate_secret() if secret_access_key is None else secret_access_key
        if not _ACCOUNT_ID.match(account_id):
            raise InvalidAccessKey(f"the account id must be 12 digits, not {account_id!r}")
        if not _KEY_ID.match(key_id):
            raise InvalidAccessKey(
                f"an access key id is 1 to 128 letters, digits or underscores, not {key_id!r}"
            )
        if not _SECRET.match(secret):
            raise InvalidAccessKey(
                "a secret access key is 1 to 128 printable ASCII characters without spaces"
            )
        key = AccessKey(key_id, account_id, self._clock.now_ms(), fingerprint(secret))
        return IssuedKey(key, secret)

    def _fields(self, issued: IssuedKey) -> list[bytes | str | int]:
        key = issued.key
        sealed = self._box.seal(issued.secret_access_key.encode(), key.access_key_id.encode())
        return [key.access_key_id, key.account_id, key.created_ms, sealed, key.fingerprint]

    async def _account_of(self, access_key_id: str) -> str | None:
        with redis_boundary():
            account = await self._redis.hget(key_hash(access_key_id), "account")
        return None if account is None else as_text(account)


def _access_key(access_key_id: str, fields: Mapping[bytes | str, bytes | str]) -> AccessKey:
    return AccessKey(
        access_key_id=access_key_id,
        account_id=as_text(fields[b"account"]),
        created_ms=int(fields[b"created_ms"]),
        fingerprint=as_text(fields[b"fingerprint"]),
    )
