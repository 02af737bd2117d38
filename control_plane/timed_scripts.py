"""Lua scripts registered with a timer: how long each script takes, as the
gateway sees it (the round trip to Redis included, which is what a request waits for).
A client from `open_redis` of one server sends them on its ScriptChannel
(control_plane/script_channel.py); any other through redis-py.

Defined here, with prometheus_client directly, since the control plane imports nothing
of the gateway's; `/metrics` (gateway/metrics_endpoint.py) serves them with the rest.
Every script is registered through `register`, which names it for its label.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

from prometheus_client import Histogram
from redis.commands.core import AsyncScript
from redis.typing import EncodableT, KeyT

from control_plane.redis_client import RedisClient, ScriptingRedis
from control_plane.script_channel import ScriptChannel

# From 100 us (a script over a few keys, on loopback) to 1 s (a purge of a large queue).
_SCRIPT_BUCKETS_S = (
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1,
)  # fmt: skip
SCRIPT_SECONDS = Histogram(
    "tidemq_redis_script_duration_seconds",
    "Time from sending a Lua script's call to Redis to having its answer, by script.",
    ("script",),
    buckets=_SCRIPT_BUCKETS_S,
)


class TimedScript:
    """A registered Lua script whose calls are timed into SCRIPT_SECONDS."""

    def __init__(self, script: AsyncScript, name: str, channel: ScriptChannel | None) -> None:
        self._script = script
        self._seconds = SCRIPT_SECONDS.labels(name)
        self._channel = channel
        source = script.script
        self._source = source.encode() if isinstance(source, str) else bytes(source)

    async def __call__(
        self,
        keys: Sequence[KeyT] | None = None,
        args: Iterable[EncodableT] | None = None,
    ) -> Any:
        started_s = time.perf_counter()
        try:
            if self._channel is not None:
                return await self._channel.evalsha(
                    self._script.sha, self._source, keys or (), args or ()
                )
            return await self._script(keys=keys, args=args)
        finally:
            self._seconds.observe(time.perf_counter() - started_s)


def register(redis: RedisClient, name: str, source: str) -> TimedScript:
    """`redis.register_script(source)`, timed under the label `name`."""
    channel = redis.script_channel if isinstance(redis, ScriptingRedis) else None
    return TimedScript(redis.register_script(source), name, channel)
