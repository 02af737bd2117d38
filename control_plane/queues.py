"""The queue catalogue: create, look up, list and delete queues of an account.

A queue is a stream with one implicit subscription. Each creation gets a fresh stream id,
so a queue deleted and created again under the same name starts from an empty log and
old receipt handles name nothing in it.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field

import orjson
from redis.asyncio import Redis

from control_plane import keys
from control_plane.clock import Clock
from control_plane.errors import QueueDoesNotExist, QueueNameExists, redis_boundary
from control_plane.queue_attributes import validate, with_defaults
from control_plane.queue_scripts import CREATE_QUEUE, DELETE_QUEUE
from control_plane.redis_values import as_text


@dataclass(frozen=True, slots=True)
class QueueInfo:
    account_id: str
    name: str
    stream_id: str
    created_ms: int
    partitions: int
    attributes: Mapping[str, str] = field(hash=False)

    def all_attributes(self) -> dict[str, str]:
        """Every implemented attribute: as set, or its default."""
        return with_defaults(self.attributes)

    def attribute_int(self, name: str) -> int:
        return int(self.all_attributes()[name])

    @property
    def visibility_timeout_ms(self) -> int:
        return self.attribute_int("VisibilityTimeout") * 1000

    @property
    def receive_wait_ms(self) -> int:
        return self.attribute_int("ReceiveMessageWaitTimeSeconds") * 1000

    @property
    def max_message_bytes(self) -> int:
        return self.attribute_int("MaximumMessageSize")


class QueueStore:
    """Queue metadata in Redis; every change is one atomic script."""

    def __init__(self, redis: Redis, clock: Clock) -> None:
        self._redis = redis
        self._clock = clock
        self._create = redis.register_script(CREATE_QUEUE)
        self._delete = redis.register_script(DELETE_QUEUE)

    async def create(self, account_id: str, name: str, attributes: Mapping[str, str]) -> QueueInfo:
        """Creates the queue, or returns it if it exists with the same attributes.

        Raises QueueNameExists if it exists with different ones, as SQS does.
        """
        wanted = validate(attributes)
        stream_id = secrets.token_hex(8)
        encoded = orjson.dumps(wanted, option=orjson.OPT_SORT_KEYS)
        now_ms = self._clock.now_ms()
        with redis_boundary():
            created = await self._create(
                keys=[keys.queue_catalogue(account_id), keys.queue_metadata(account_id, name)],
                args=[name, stream_id, now_ms, 1, encoded],
            )
        if not created:
            existing = await self.get(account_id, name)
            if dict(existing.attributes) != wanted:
                raise QueueNameExists(
                    f"A queue already exists with the same name and a different value for "
                    f"attribute(s) {', '.join(_differing(existing.attributes, wanted))}"
                )
            return existing
        return QueueInfo(account_id, name, stream_id, now_ms, 1, wanted)

    async def get(self, account_id: str, name: str) -> QueueInfo:
        with redis_boundary():
            fields = await self._redis.hgetall(keys.queue_metadata(account_id, name))
        if not fields:
            raise QueueDoesNotExist("The specified queue does not exist.")
        return QueueInfo(
            account_id=account_id,
            name=name,
            stream_id=as_text(fields[b"stream_id"]),
            created_ms=int(fields[b"created_ms"]),
            partitions=int(fields[b"partitions"]),
            attributes=orjson.loads(fields[b"attributes"]),
        )

    async def delete(self, account_id: str, name: str) -> QueueInfo:
        """Removes the queue from the catalogue; the caller drops its stream and state."""
        queue = await self.get(account_id, name)
        with redis_boundary():
            await self._delete(
                keys=[keys.queue_catalogue(account_id), keys.queue_metadata(account_id, name)],
                args=[name, queue.stream_id],
            )
        return queue

    async def list_names(self, account_id: str, prefix: str = "") -> list[str]:
        """Queue names in lexicographic order, those starting with `prefix` only."""
        low = b"[" + prefix.encode() if prefix else b"-"
        high = b"[" + prefix.encode() + b"\xff" if prefix else b"+"
        with redis_boundary():
            names = await self._redis.zrangebylex(keys.queue_catalogue(account_id), low, high)
        return [as_text(name) for name in names]


def _differing(existing: Mapping[str, str], wanted: Mapping[str, str]) -> list[str]:
    names = sorted(set(existing) | set(wanted))
    return [n for n in names if existing.get(n) != wanted.get(n)]
