"""Bearer tokens: random secrets for the REST API, each acting in one account until it
expires or is revoked.

A token is `tqb_` and 43 characters of URL-safe base64 (256 random bits). Only its
SHA-256 is stored: unlike an access key's secret (which SigV4 needs in full), a bearer
token is presented as it is, so a hash is enough to check it, and a Redis dump reveals no
usable token. A fast hash is fine here: the token is random and long, so there is nothing
to guess offline. Each token also has a short random id, shown by `tidemq keys tokens`
and accepted by `tidemq keys revoke-token`, so a token can be revoked by whoever lists it
without ever holding it.

Keys, under the hash tag `{auth}` beside the access keys:

    tq:{auth}:token:<sha256 hex>   hash: id, account, created_ms, expires_ms
    tq:{auth}:token-ids            hash: token id -> sha256 hex

A token's hash expires in Redis a week after the token does, so for that week a request
presenting it is told it expired rather than that it is unknown. A gateway keeps the
records it looked up (control_plane/metadata_cache.py); revoking publishes the record's
invalidation inside the revoking script, so a revoked token is refused by every gateway
from the next request on.
"""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field

from control_plane import timed_scripts
from control_plane.access_keys import DEFAULT_ACCOUNT_ID
from control_plane.acked_pubsub import new_nonce
from control_plane.clock import Clock
from control_plane.errors import InvalidParameterValue, redis_boundary
from control_plane.metadata_cache import (
    MetadataCache,
    receivers_if_changed,
    return_invalidating,
    wait_applied,
)
from control_plane.redis_client import RedisClient
from control_plane.redis_values import as_text

log = logging.getLogger(__name__)

_PREFIX = "tq:{auth}"
TOKEN_IDS = f"{_PREFIX}:token-ids"
BEARER_PREFIX = "tqb_"
# Expired tokens are kept this long, so that they are reported as expired, not unknown.
EXPIRED_KEPT_MS = 7 * 24 * 3600 * 1000
MAX_TTL_MS = 10 * 365 * 24 * 3600 * 1000

_TOKEN = re.compile(r"^tqb_[A-Za-z0-9_-]{43}\Z")
_TOKEN_ID = re.compile(r"^[0-9a-f]{16}\Z")
_ACCOUNT_ID = re.compile(r"^[0-9]{12}\Z")

CREATE_SCRIPT = """
-- KEYS[1] the token's hash (by the token's SHA-256), KEYS[2] token id -> SHA-256 (hash)
-- ARGV[1] token id, ARGV[2] SHA-256 hex, ARGV[3] account id, ARGV[4] created ms,
-- ARGV[5] expires ms, ARGV[6] when Redis drops the record (ms since the epoch)
-- returns 1 if created, 0 if the id or the token is taken (nothing changed)
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'account', ARGV[3], 'created_ms', ARGV[4],
           'expires_ms', ARGV[5])
redis.call('PEXPIREAT', KEYS[1], ARGV[6])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
"""

REVOKE_SCRIPT = """
-- KEYS[1] the token's hash, KEYS[2] token id -> SHA-256 (hash)
-- ARGV[1] token id, ARGV[2] the SHA-256 hex the caller read for it, ARGV[3] invalidation
-- nonce
-- returns {1, gateways told} if revoked, 0 if the id no longer names that token (nothing
-- changed)
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HDEL', KEYS[2], ARGV[1])
""" + return_invalidating("KEYS[1]", "ARGV[3]")


def token_record(digest: str) -> str:
    return f"{_PREFIX}:token:{digest}"


def digest_of(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class BearerToken:
    """What is kept of a token: never the token itself."""

    token_id: str
    account_id: str
    created_ms: int
    expires_ms: int

    def expired(self, now_ms: int) -> bool:
        return now_ms >= self.expires_ms


@dataclass(frozen=True, slots=True)
class IssuedToken:
    """A new token with its secret value: what `create` hands out, once."""

    record: BearerToken
    token: str = field(repr=False)


class BearerTokens:
    def __init__(
        self, redis: RedisClient, clock: Clock, cache: MetadataCache | None = None
    ) -> None:
        """`cache`: the gateway's metadata cache; without one every lookup reads Redis."""
        self._redis = redis
        self._clock = clock
        self._cache = cache or MetadataCache()
        self._create = timed_scripts.register(redis, "create_script", CREATE_SCRIPT)
        self._revoke = timed_scripts.register(redis, "revoke_script", REVOKE_SCRIPT)

    async def create(self, account_id: str = DEFAULT_ACCOUNT_ID, *, ttl_ms: int) -> IssuedToken:
        """A new token for the account, valid for `ttl_ms` from now."""
        if not _ACCOUNT_ID.match(account_id):
            raise InvalidParameterValue(f"the account id must be 12 digits, not {account_id!r}")
        if not 1 <= ttl_ms <= MAX_TTL_MS:
            raise InvalidParameterValue(f"a token lives from 1 ms to {MAX_TTL_MS} ms, not {ttl_ms}")
        now_ms = self._clock.now_ms()
        token = BEARER_PREFIX + secrets.token_urlsafe(32)
        record = BearerToken(secrets.token_hex(8), account_id, now_ms, now_ms + ttl_ms)
        digest = digest_of(token)
        with redis_boundary():
            created = await self._create(
                keys=[token_record(digest), TOKEN_IDS],
                args=[
                    record.token_id,
                    digest,
                    account_id,
                    record.created_ms,
                    record.expires_ms,
                    record.expires_ms + EXPIRED_KEPT_MS,
                ],
            )
        if not int(created):  # 64 random bits of id collided: vanishingly rare
            raise InvalidParameterValue("a token with that id exists; try again")
        log.info("bearer token %s created for account %s", record.token_id, account_id)
        return IssuedToken(record, token)

    async def find(self, token: str) -> BearerToken | None:
        """The record of a presented token (expired or not); None if it names none."""
        if not _TOKEN.match(token):
            return None
        key = token_record(digest_of(token))
        cached = self._cache.get(key)
        if isinstance(cached, BearerToken):
            return cached
        generation = self._cache.generation
        with redis_boundary():
            fields = await self._redis.hgetall(key)
        if not fields:
            return None
        found = _record(fields)
        self._cache.put(key, found, generation)
        return found

    async def revoke(self, token_or_id: str) -> BearerToken | None:
        """Removes the token named by its id or by the token itself; None if none."""
        token_id = token_or_id
        if _TOKEN.match(token_or_id):
            found = await self.find(token_or_id)
            if found is None:
                return None
            token_id = found.token_id
        if not _TOKEN_ID.match(token_id):
            return None
        with redis_boundary():
            digest = await self._redis.hget(TOKEN_IDS, token_id)
            if digest is None:
                return None
            record = token_record(as_text(digest))
            fields = await self._redis.hgetall(record)
            nonce = new_nonce()
            receivers = receivers_if_changed(
                await self._revoke(keys=[record, TOKEN_IDS], args=[token_id, digest, nonce])
            )
            if receivers is not None:
                self._cache.invalidate(record)
                await wait_applied(self._redis, nonce, receivers)
        if receivers is None or not fields:  # revoked meanwhile, or dropped after expiring
            return None
        token = _record(fields)
        log.info("bearer token %s of account %s revoked", token_id, token.account_id)
        return token

    async def list_tokens(self, account_id: str | None = None) -> list[BearerToken]:
        """Tokens not yet dropped (expired ones for a week), ordered by creation."""
        with redis_boundary():
            ids = await self._redis.hgetall(TOKEN_IDS)
            pairs = [(as_text(i), as_text(d)) for i, d in ids.items()]
            async with self._redis.pipeline(transaction=False) as pipe:
                for _, digest in pairs:
                    pipe.hgetall(token_record(digest))
                replies = await pipe.execute()
            gone = [
                token_id for (token_id, _), fields in zip(pairs, replies, strict=True) if not fields
            ]
            if gone:  # dropped by Redis after expiring: forget their ids too
                await self._redis.hdel(TOKEN_IDS, *gone)
        records = [_record(fields) for fields in replies if fields]
        if account_id is not None:
            records = [r for r in records if r.account_id == account_id]
        return sorted(records, key=lambda r: (r.created_ms, r.token_id))


def _record(fields: Mapping[bytes | str, bytes | str]) -> BearerToken:
    return BearerToken(
        token_id=as_text(fields[b"id"]),
        account_id=as_text(fields[b"account"]),
        created_ms=int(fields[b"created_ms"]),
        expires_ms=int(fields[b"expires_ms"]),
    )
