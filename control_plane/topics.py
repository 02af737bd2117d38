"""The topic catalogue: create, look up, change, tag, list and delete an account's topics.

A topic is a stream with many subscriptions (control_plane/subscriptions.py). Each
creation gets a fresh stream id, so a topic deleted and created again starts from an
empty log. Unlike queues, SNS reserves no deleted name: a topic can be created again at
once. Attributes are stored as given; the gateway's core checks them.

Lookups go through the gateway's metadata cache, as queues' do: every publish looks its
topic up, and the scripts that change or delete a topic publish its invalidation.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

import orjson

from control_plane import redis_keys, timed_scripts
from control_plane.accounts import AccountIndex
from control_plane.acked_pubsub import new_nonce
from control_plane.arns import topic_arn
from control_plane.clock import Clock
from control_plane.errors import (
    ControlPlaneUnavailable,
    InvalidParameter,
    NotFound,
    TagLimitExceeded,
    redis_boundary,
)
from control_plane.metadata_cache import MetadataCache, receivers_if_changed, wait_applied
from control_plane.queue_attributes import REPLICATION, ReplicationMode
from control_plane.queue_scripts import TAG_QUEUE
from control_plane.redis_client import RedisClient
from control_plane.redis_values import as_text
from control_plane.topic_scripts import CREATE_TOPIC, DELETE_TOPIC, SET_TOPIC_ATTRIBUTES

MAX_TAGS = 50
# Tries of a deletion whose subscriptions keep changing between its read and its script.
_RACE_RETRIES = 5


def topic_not_found() -> NotFound:
    return NotFound("Topic does not exist")


@dataclass(frozen=True, slots=True)
class TopicInfo:
    account_id: str
    name: str
    stream_id: str
    created_ms: int
    attributes: Mapping[str, str] = field(hash=False)

    @property
    def arn(self) -> str:
        return topic_arn(self.account_id, self.name)

    @property
    def fifo(self) -> bool:
        return self.name.endswith(".fifo")

    @property
    def partitions(self) -> int:
        """How many partitions its log has: its `Partitions` attribute, fixed at creation
        (checked by the gateway's core; absent means 1)."""
        return int(self.attributes.get("Partitions", "1"))

    @property
    def replication(self) -> ReplicationMode:
        """How its un-archived tail is kept: its `Replication` attribute, fixed at
        creation (`none` for a topic made before the attribute existed)."""
        mode = self.attributes.get(REPLICATION, "none")
        return "replica" if mode == "replica" else "object" if mode == "object" else "none"


class TopicStore:
    def __init__(
        self, redis: RedisClient, clock: Clock, cache: MetadataCache | None = None
    ) -> None:
        self._redis = redis
        self._clock = clock
        self._cache = cache or MetadataCache()
        self._accounts = AccountIndex(redis)
        self._create = timed_scripts.register(redis, "create_topic", CREATE_TOPIC)
        self._delete = timed_scripts.register(redis, "delete_topic", DELETE_TOPIC)
        self._set_attributes = timed_scripts.register(
            redis, "set_topic_attributes", SET_TOPIC_ATTRIBUTES
        )
        self._tag = timed_scripts.register(redis, "tag_queue", TAG_QUEUE)

    async def create(
        self,
        account_id: str,
        name: str,
        attributes: Mapping[str, str],
        tags: Mapping[str, str],
        *,
        default_replication: ReplicationMode = "none",
    ) -> tuple[TopicInfo, bool]:
        """The topic and whether it was created now. An existing topic is returned as it
        is when the request asks for no attribute or the same ones (SNS's CreateTopic is
        idempotent); other attributes raise InvalidParameter. A new topic whose
        attributes do not name `Replication` gets `default_replication`."""
        stream_id = secrets.token_hex(8)
        now_ms = self._clock.now_ms()
        wanted = dict(attributes)
        # Kept among the attributes where it is not the default `none`, as topics made
        # before it existed have it.
        stored = {REPLICATION: default_replication, **wanted}
        if stored[REPLICATION] == "none":
            del stored[REPLICATION]
        with redis_boundary():
            created = await self._create(
                keys=[
                    redis_keys.topic_catalogue(account_id),
                    redis_keys.topic_metadata(account_id, name),
                    redis_keys.topic_tags(account_id, name),
                ],
                args=[
                    name,
                    stream_id,
                    now_ms,
                    _encode(stored),
                    *(part for item in tags.items() for part in item),
                ],
            )
        if int(created) == 1:
            await self._accounts.add(account_id)
            return TopicInfo(account_id, name, stream_id, now_ms, stored), True
        existing = await self._read(account_id, name)
        known = {**existing.attributes, REPLICATION: existing.replication}
        if any(known.get(k) != v for k, v in wanted.items()):
            raise InvalidParameter(
                "Invalid parameter: Attributes Reason: Topic already exists with different "
                "attributes"
            )
        if tags and await self.tags(account_id, name) != dict(tags):
            raise InvalidParameter(
                "Invalid parameter: Tags Reason: Topic already exists with different tags"
            )
        return existing, False

    async def get(self, account_id: str, name: str) -> TopicInfo:
        key = redis_keys.topic_metadata(account_id, name)
        cached = self._cache.get(key)
        if isinstance(cached, TopicInfo):
            return cached
        generation = self._cache.generation
        topic = await self._read(account_id, name)
        self._cache.put(key, topic, generation)
        return topic

    async def _read(self, account_id: str, name: str) -> TopicInfo:
        with redis_boundary():
            fields = await self._redis.hgetall(redis_keys.topic_metadata(account_id, name))
        if not fields:
            raise topic_not_found()
        return TopicInfo(
            account_id=account_id,
            name=name,
            stream_id=as_text(fields[b"stream_id"]),
            created_ms=int(fields[b"created_ms"]),
            attributes=orjson.loads(fields[b"attributes"]),
        )

    async def set_attributes(self, topic: TopicInfo, changes: Mapping[str, str]) -> TopicInfo:
        """Sets the given attributes; an empty value removes one (back to its default)."""
        current = await self._read(topic.account_id, topic.name)
        merged = {**current.attributes, **changes}
        merged = {k: v for k, v in merged.items() if v != ""}
        metadata = redis_keys.topic_metadata(topic.account_id, topic.name)
        nonce = new_nonce()
        with redis_boundary():
            receivers = receivers_if_changed(
                await self._set_attributes(
                    keys=[metadata], args=[current.stream_id, _encode(merged), nonce]
                )
            )
            if receivers is None:
                raise topic_not_found()
            self._cache.invalidate(metadata)
            await wait_applied(self._redis, nonce, receivers)
        return await self._read(topic.account_id, topic.name)

    async def delete(self, account_id: str, name: str) -> tuple[TopicInfo, list[str]] | None:
        """Deletes the topic and its subscriptions: the topic and the ids of the
        subscriptions deleted (the caller drops their delivery state and the stream), or
        None if there was no such topic (SNS's DeleteTopic then succeeds all the same)."""
        try:
            topic = await self._read(account_id, name)
        except NotFound:
            return None
        metadata = redis_keys.topic_metadata(account_id, name)
        subscriptions = redis_keys.topic_subscriptions(account_id, name)
        for _ in range(_RACE_RETRIES):
            nonce = new_nonce()
            with redis_boundary():
                # Without scores, the reply is the member names only.
                found = cast("list[bytes]", await self._redis.zrange(subscriptions, 0, -1))
                ids = [as_text(i) for i in found]
                result = await self._delete(
                    keys=[
                        redis_keys.topic_catalogue(account_id),
                        metadata,
                        redis_keys.topic_tags(account_id, name),
                        subscriptions,
                        redis_keys.topic_endpoints(account_id, name),
                        redis_keys.account_subscriptions(account_id),
                        redis_keys.confirmation_tokens(account_id),
                        *(redis_keys.subscription(account_id, i) for i in ids),
                    ],
                    args=[name, topic.stream_id, nonce, *ids],
                )
                if result == -1:
                    continue  # subscribed or unsubscribed meanwhile: read them again
                if not isinstance(result, list):
                    return None
                self._cache.invalidate(metadata)
                await wait_applied(self._redis, nonce, int(result[0]))
            return topic, [as_text(i) for i in result[1:]]
        raise ControlPlaneUnavailable(
            f"topic {name} is being subscribed to while it is deleted; try again"
        )

    async def list_page(self, account_id: str, after: str, limit: int) -> list[TopicInfo]:
        """Up to `limit` topics whose names sort after `after` ("" for the first page)."""
        low = b"(" + after.encode() if after else b"-"
        with redis_boundary():
            names = await self._redis.zrangebylex(
                redis_keys.topic_catalogue(account_id), low, b"+", start=0, num=limit
            )
        topics = []
        for raw in names:
            try:
                topics.append(await self.get(account_id, as_text(raw)))
            except NotFound:
                continue  # deleted while being listed
        return topics

    async def tag(self, topic: TopicInfo, tags: Mapping[str, str]) -> None:
        with redis_boundary():
            result = await self._tag(
                keys=[
                    redis_keys.topic_metadata(topic.account_id, topic.name),
                    redis_keys.topic_tags(topic.account_id, topic.name),
                ],
                args=[topic.stream_id, MAX_TAGS, *(p for item in tags.items() for p in item)],
            )
        if int(result) == 0:
            raise NotFound("Resource does not exist")
        if int(result) == -1:
            raise TagLimitExceeded("Could not complete request: tag quota of per resource exceeded")

    async def untag(self, topic: TopicInfo, tag_keys: Sequence[str]) -> None:
        if tag_keys:
            with redis_boundary():
                await self._redis.hdel(
                    redis_keys.topic_tags(topic.account_id, topic.name), *tag_keys
                )

    async def tags(self, account_id: str, name: str) -> dict[str, str]:
        with redis_boundary():
            raw = await self._redis.hgetall(redis_keys.topic_tags(account_id, name))
        return {as_text(k): as_text(v) for k, v in raw.items()}


def _encode(attributes: Mapping[str, str]) -> bytes:
    return orjson.dumps(attributes, option=orjson.OPT_SORT_KEYS)
