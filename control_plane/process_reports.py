"""What each node and gateway process last said of itself, for `tidemq cluster status`.

A process writes its report (pid, partitions held, ...) with every heartbeat and removes
it when it leaves. Reports are informational only: who is alive is membership's answer
(control_plane.membership), who may write a partition the lease's. A process that died
leaves its report behind; `read` returns reports of the ids asked for only, so a reader
asks for the live ones, and `prune` drops the others.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import orjson

from control_plane import redis_keys
from control_plane.errors import redis_boundary
from control_plane.membership import Role
from control_plane.redis_client import RedisClient


class ProcessReports:
    def __init__(self, redis: RedisClient) -> None:
        self._redis = redis

    async def publish(self, role: Role, process_id: str, report: Mapping[str, Any]) -> None:
        with redis_boundary():
            await self._redis.hset(
                redis_keys.PROCESS_REPORTS, f"{role}:{process_id}", orjson.dumps(dict(report))
            )

    async def remove(self, role: Role, process_id: str) -> None:
        with redis_boundary():
            await self._redis.hdel(redis_keys.PROCESS_REPORTS, f"{role}:{process_id}")

    async def read(self, role: Role, process_ids: Collection[str]) -> dict[str, dict[str, Any]]:
        """The reports of these processes that exist, by id."""
        if not process_ids:
            return {}
        ids = list(process_ids)
        with redis_boundary():
            found = await self._redis.hmget(
                redis_keys.PROCESS_REPORTS, [f"{role}:{i}" for i in ids]
            )
        return {i: orjson.loads(raw) for i, raw in zip(ids, found, strict=True) if raw is not None}

    async def prune(self, role: Role, live_ids: Collection[str]) -> None:
        """Drops the reports of processes of `role` not among `live_ids` (they died)."""
        live = {f"{role}:{i}" for i in live_ids}
        with redis_boundary():
            fields = await self._redis.hkeys(redis_keys.PROCESS_REPORTS)
            dead = [
                name
                for raw in fields
                if (name := raw.decode() if isinstance(raw, bytes) else str(raw)).startswith(
                    f"{role}:"
                )
                and name not in live
            ]
            if dead:
                await self._redis.hdel(redis_keys.PROCESS_REPORTS, *dead)
