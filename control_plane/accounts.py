"""The accounts that own queues or topics, so that every queue of a deployment can be
listed (the metrics census, gateway/core/queue_census.py).

Queue and topic catalogues are kept per account, under the account's hash tag, and no
script can also write a key of another slot; so a new queue or topic adds its account
to `tq:accounts` right after its creation script succeeded. A crash between the two
leaves the account out until it creates another one, which only hides its queues from
the metrics until then.

Deployments that had queues before the index existed: the first listing in a process
finds no `tq:accounts-indexed` marker, scans the catalogues' keys once (SCAN, in pages:
Redis is never blocked), adds their accounts and sets the marker. Two gateways doing so
at once add the same members; the marker is set only after a whole scan.
"""

from __future__ import annotations

from control_plane import redis_keys
from control_plane.errors import redis_boundary
from control_plane.redis_client import RedisClient
from control_plane.redis_values import as_text

_SCAN_PAGE = 1_000


class AccountIndex:
    def __init__(self, redis: RedisClient) -> None:
        self._redis = redis
        self._complete = False  # the marker was seen (or set) by this process

    async def add(self, account_id: str) -> None:
        with redis_boundary():
            await self._redis.sadd(redis_keys.ACCOUNTS, account_id)

    async def all(self) -> list[str]:
        """Every account that has created a queue or a topic, sorted."""
        if not self._complete:
            await self._index_existing()
        with redis_boundary():
            members = await self._redis.smembers(redis_keys.ACCOUNTS)
        return sorted(as_text(member) for member in members)

    async def _index_existing(self) -> None:
        with redis_boundary():
            if await self._redis.exists(redis_keys.ACCOUNTS_INDEXED):
                self._complete = True
                return
            found: set[str] = set()
            for pattern in (
                redis_keys.queue_catalogue("*"),
                redis_keys.topic_catalogue("*"),
            ):
                async for key in self._redis.scan_iter(match=pattern, count=_SCAN_PAGE):
                    account_id = redis_keys.account_of_catalogue(as_text(key))
                    if account_id is not None:
                        found.add(account_id)
            if found:
                await self._redis.sadd(redis_keys.ACCOUNTS, *sorted(found))
            await self._redis.set(redis_keys.ACCOUNTS_INDEXED, 1)
        self._complete = True
