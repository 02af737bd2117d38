"""SNS actions on subscriptions: subscribe, confirm, unsubscribe, list, attributes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gateway.core.topics import PENDING_CONFIRMATION, Subscription
from gateway.sns.actions.context import SnsContext
from gateway.sns.params import attributes_map, required

Result = dict[str, Any]


async def subscribe(ctx: SnsContext, params: dict[str, Any]) -> Result:
    topic = await ctx.topic(required(params, "TopicArn"))
    subscription, _ = await ctx.broker.topics.subscribe(
        ctx.caller(),
        topic,
        required(params, "Protocol"),
        params.get("Endpoint") or "",
        attributes_map(params.get("Attributes")),
    )
    shown = subscription.arn
    if subscription.pending and not params.get("ReturnSubscriptionArn"):
        shown = PENDING_CONFIRMATION
    return {"SubscriptionArn": shown}


async def confirm_subscription(ctx: SnsContext, params: dict[str, Any]) -> Result:
    # Allowed unsigned: the token, sent only to the endpoint, is the credential.
    subscription = await ctx.broker.topics.confirm_subscription(
        required(params, "TopicArn"), required(params, "Token")
    )
    return {"SubscriptionArn": subscription.arn}


async def unsubscribe(ctx: SnsContext, params: dict[str, Any]) -> Result:
    # Allowed unsigned (the UnsubscribeURL of every message): SNS does the same.
    await ctx.broker.topics.unsubscribe(ctx.account_id, required(params, "SubscriptionArn"))
    return {}


async def get_subscription_attributes(ctx: SnsContext, params: dict[str, Any]) -> Result:
    subscription = await ctx.broker.topics.subscription(
        ctx.caller(), required(params, "SubscriptionArn"), "GetSubscriptionAttributes"
    )
    return {"Attributes": await ctx.broker.topics.subscription_attributes(subscription)}


async def set_subscription_attributes(ctx: SnsContext, params: dict[str, Any]) -> Result:
    subscription = await ctx.broker.topics.subscription(
        ctx.caller(), required(params, "SubscriptionArn"), "SetSubscriptionAttributes"
    )
    await ctx.broker.topics.set_subscription_attribute(
        subscription, required(params, "AttributeName"), params.get("AttributeValue") or ""
    )
    return {}


async def list_subscriptions(ctx: SnsContext, params: dict[str, Any]) -> Result:
    found, token = await ctx.broker.topics.list_subscriptions(
        ctx.caller(), None, params.get("NextToken")
    )
    return _listed(found, token)


async def list_subscriptions_by_topic(ctx: SnsContext, params: dict[str, Any]) -> Result:
    topic = await ctx.topic(required(params, "TopicArn"))
    found, token = await ctx.broker.topics.list_subscriptions(
        topic.account_id, topic, params.get("NextToken")
    )
    return _listed(found, token)


def _listed(found: Sequence[Subscription], token: str | None) -> Result:
    result: Result = {
        "Subscriptions": [
            {
                "SubscriptionArn": "PendingConfirmation" if s.pending else s.arn,
                "Owner": s.owner,
                "Protocol": s.protocol,
                "Endpoint": s.endpoint,
                "TopicArn": s.topic_arn,
            }
            for s in found
        ]
    }
    if token is not None:
        result["NextToken"] = token
    return result
