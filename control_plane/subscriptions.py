"""Subscriptions to topics: subscribe, confirm, look up, change, list and unsubscribe.

A subscription lives in its topic owner's hash slot, beside the topic. Its delivery
state (cursor, timers, receive counts) is that of any subscription
(control_plane/deliveries.py), under the subscription's id; what is kept here is what it
is: protocol, endpoint, attributes, and whether it waits for confirmation.

Subscriptions that the gateways deliver themselves (to queues and webhooks) are also
listed in one registry, `redis_keys.PUSH_SUBSCRIPTIONS`, which each gateway's dispatcher
reads. The registry is written before the subscription and cleared after it, so that a
crash between the two leaves at worst an entry that names nothing, which the dispatcher
drops; never a subscription that nobody delivers.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field

import orjson

from control_plane import redis_keys, timed_scripts
from control_plane.arns import subscription_arn, topic_arn
from control_plane.clock import Clock
from control_plane.errors import NotFound, redis_boundary
from control_plane.redis_client import RedisClient
from control_plane.redis_values import as_text
from control_plane.topic_scripts import (
    CONFIRM,
    SET_SUBSCRIPTION_ATTRIBUTES,
    SUBSCRIBE,
    UNSUBSCRIBE,
)
from control_plane.topics import TopicInfo, topic_not_found

# Protocols whose messages a gateway's dispatcher delivers (the rest are pulled).
PUSHED_PROTOCOLS = frozenset({"sqs", "http", "https"})


def subscription_not_found() -> NotFound:
    return NotFound("Subscription does not exist")


@dataclass(frozen=True, slots=True)
class SubscriptionInfo:
    account_id: str  # the topic's owner, whose slot the subscription is kept in
    id: str
    topic_name: str
    topic_stream_id: str
    protocol: str
    endpoint: str
    owner: str  # the account that subscribed
    created_ms: int
    attributes: Mapping[str, str] = field(hash=False)
    pending: bool = False
    token: str | None = None
    # The topic's, copied at subscribe (it never changes): the partitions of its log.
    topic_partitions: int = 1

    @property
    def arn(self) -> str:
        return subscription_arn(self.account_id, self.topic_name, self.id)

    @property
    def topic_arn(self) -> str:
        return topic_arn(self.account_id, self.topic_name)

    @property
    def pushed(self) -> bool:
        return self.protocol in PUSHED_PROTOCOLS


class SubscriptionStore:
    def __init__(self, redis: RedisClient, clock: Clock) -> None:
        self._redis = redis
        self._clock = clock
        self._subscribe = timed_scripts.register(redis, "subscribe", SUBSCRIBE)
        self._unsubscribe = timed_scripts.register(redis, "unsubscribe", UNSUBSCRIBE)
        self._confirm = timed_scripts.register(redis, "confirm", CONFIRM)
        self._set_attributes = timed_scripts.register(
            redis, "set_subscription_attributes", SET_SUBSCRIPTION_ATTRIBUTES
        )

    async def subscribe(
        self,
        topic: TopicInfo,
        protocol: str,
        endpoint: str,
        owner: str,
        attributes: Mapping[str, str],
        *,
        pending: bool,
    ) -> tuple[SubscriptionInfo, bool]:
        """The subscription and whether it was made now: an endpoint already subscribed
        to the topic (same protocol) is returned as it is."""
        account = topic.account_id
        subscription_id = str(uuid.uuid4())
        now_ms = self._clock.now_ms()
        fields: dict[str, str] = {
            "topic": topic.name,
            "topic_stream_id": topic.stream_id,
            "topic_partitions": str(topic.partitions),
            "protocol": protocol,
            "endpoint": endpoint,
            "owner": owner,
            "created_ms": str(now_ms),
            "attributes": _encode(attributes),
            "pending": "1" if pending else "0",
        }
        if pending:
            fields["token"] = secrets.token_hex(64)
        with redis_boundary():
            if protocol in PUSHED_PROTOCOLS:
                await self._redis.sadd(
                    redis_keys.PUSH_SUBSCRIPTIONS, f"{account}:{subscription_id}"
                )
            result = await self._subscribe(
                keys=[
                    redis_keys.topic_metadata(account, topic.name),
                    redis_keys.topic_subscriptions(account, topic.name),
                    redis_keys.topic_endpoints(account, topic.name),
                    redis_keys.account_subscriptions(account),
                    redis_keys.subscription(account, subscription_id),
                    redis_keys.confirmation_tokens(account),
                ],
                args=[
                    topic.stream_id,
                    f"{protocol} {endpoint}",
                    subscription_id,
                    *(part for item in fields.items() for part in item),
                ],
            )
            status = int(result[0])
            if status != 1 and protocol in PUSHED_PROTOCOLS:
                await self._redis.srem(
                    redis_keys.PUSH_SUBSCRIPTIONS, f"{account}:{subscription_id}"
                )
        if status == 0:
            raise topic_not_found()
        if status == 2:
            return await self.get(account, as_text(result[1])), False
        return _info(account, subscription_id, fields), True

    async def get(self, account_id: str, subscription_id: str) -> SubscriptionInfo:
        with redis_boundary():
            raw = await self._redis.hgetall(redis_keys.subscription(account_id, subscription_id))
        if not raw:
            raise subscription_not_found()
        fields = {as_text(k): as_text(v) for k, v in raw.items()}
        return _info(account_id, subscription_id, fields)

    async def unsubscribe(self, subscription: SubscriptionInfo) -> bool:
        """Removes the subscription; False if it was gone already. The caller drops its
        delivery state."""
        account = subscription.account_id
        with redis_boundary():
            removed = await self._unsubscribe(
                keys=[
                    redis_keys.subscription(account, subscription.id),
                    redis_keys.topic_subscriptions(account, subscription.topic_name),
                    redis_keys.topic_endpoints(account, subscription.topic_name),
                    redis_keys.account_subscriptions(account),
                    redis_keys.confirmation_tokens(account),
                ],
                args=[subscription.id],
            )
            await self.forget_pushed(account, subscription.id)
        return int(removed) == 1

    async def forget_pushed(self, account_id: str, subscription_id: str) -> None:
        """Takes a deleted subscription out of the dispatchers' registry."""
        with redis_boundary():
            await self._redis.srem(redis_keys.PUSH_SUBSCRIPTIONS, f"{account_id}:{subscription_id}")

    async def confirm(self, topic: TopicInfo, token: str) -> SubscriptionInfo | None:
        """Confirms the subscription the token was sent for; None for an unknown token."""
        tokens = redis_keys.confirmation_tokens(topic.account_id)
        with redis_boundary():
            found = await self._redis.hget(tokens, token)
            if found is None:
                return None
            subscription_id = as_text(found)
            confirmed = await self._confirm(
                keys=[tokens, redis_keys.subscription(topic.account_id, subscription_id)],
                args=[token, subscription_id, topic.name],
            )
        if not confirmed:
            return None
        return await self.get(topic.account_id, as_text(confirmed))

    async def set_attributes(
        self, subscription: SubscriptionInfo, attributes: Mapping[str, str]
    ) -> SubscriptionInfo:
        """Replaces the subscription's attributes with `attributes` (all of them)."""
        key = redis_keys.subscription(subscription.account_id, subscription.id)
        with redis_boundary():
            changed = await self._set_attributes(keys=[key], args=[_encode(attributes)])
        if int(changed) == 0:
            raise subscription_not_found()
        return await self.get(subscription.account_id, subscription.id)

    async def list_page(
        self, account_id: str, topic_name: str | None, after: str, limit: int
    ) -> list[SubscriptionInfo]:
        """Up to `limit` subscriptions (of one topic, or of every topic of the account)
        whose ids sort after `after` ("" for the first page)."""
        key = (
            redis_keys.account_subscriptions(account_id)
            if topic_name is None
            else redis_keys.topic_subscriptions(account_id, topic_name)
        )
        low = b"(" + after.encode() if after else b"-"
        with redis_boundary():
            ids = [as_text(i) for i in await self._redis.zrangebylex(key, low, b"+", 0, limit)]
            # One round trip for the page, not one per subscription.
            async with self._redis.pipeline(transaction=False) as pipe:
                for subscription_id in ids:
                    pipe.hgetall(redis_keys.subscription(account_id, subscription_id))
                replies = await pipe.execute()
        return [
            _info(account_id, i, {as_text(k): as_text(v) for k, v in raw.items()})
            for i, raw in zip(ids, replies, strict=True)
            if raw  # an empty hash: unsubscribed while being listed
        ]

    async def pushed(self) -> list[tuple[str, str]]:
        """(topic owner's account id, subscription id) of every pushed subscription."""
        with redis_boundary():
            members = await self._redis.smembers(redis_keys.PUSH_SUBSCRIPTIONS)
        pairs = []
        for member in members:
            account_id, _, subscription_id = as_text(member).partition(":")
            pairs.append((account_id, subscription_id))
        return sorted(pairs)


def _info(account_id: str, subscription_id: str, fields: Mapping[str, str]) -> SubscriptionInfo:
    return SubscriptionInfo(
        account_id=account_id,
        id=subscription_id,
        topic_name=fields["topic"],
        topic_stream_id=fields["topic_stream_id"],
        protocol=fields["protocol"],
        endpoint=fields["endpoint"],
        owner=fields["owner"],
        created_ms=int(fields["created_ms"]),
        attributes=orjson.loads(fields["attributes"]),
        pending=fields.get("pending") == "1",
        token=fields.get("token"),
        # Absent from subscriptions made before topics had partitions: theirs have one.
        topic_partitions=int(fields.get("topic_partitions", "1")),
    )


def _encode(attributes: Mapping[str, str]) -> str:
    return orjson.dumps(attributes, option=orjson.OPT_SORT_KEYS).decode()
