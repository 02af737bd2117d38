"""Subscription operations: describe, change, delete; and for pull subscriptions the
queue verbs (receive, delete, change visibility) on the topic's log, and seek.

A subscription is named by its id, the last part of its ARN; it is the caller's when its
topic is. Receipt handles are the subscription's own: one of a queue, or of another
subscription, is refused as on a queue (ReceiptHandleIsInvalid).
"""

from __future__ import annotations

from gateway.core.topics import Subscription as SubscriptionInfo
from gateway.native.messages import (
    ChangeVisibility,
    DeleteMessages,
    EntryResults,
    Receive,
    ReceivedMessages,
)
from gateway.rest.context import RestContext
from gateway.rest.messages import change_visibility_of, delete_from, receive_from
from gateway.rest.operations import operation
from gateway.rest.shapes.topics import (
    Seek,
    SetSubscriptionAttributes,
    Sought,
    Subscription,
    SubscriptionStats,
)

TAG = "subscriptions"


@operation("GET", "/v1/subscriptions/{id}", tag=TAG, response=Subscription)
async def get_subscription(ctx: RestContext, _: None) -> Subscription:
    """Describe a subscription.

    Its attributes as SNS shows them (a pull subscription's with its VisibilityTimeout),
    and for a pull subscription its approximate counts.
    """
    return await described(ctx, await ctx.subscription())


@operation(
    "PATCH", "/v1/subscriptions/{id}", tag=TAG, body=SetSubscriptionAttributes,
    response=Subscription,
)  # fmt: skip
async def set_subscription_attributes(
    ctx: RestContext, request: SetSubscriptionAttributes
) -> Subscription:
    """Change a subscription's attributes.

    The given attributes change (an empty value removes one) and the rest stay; all are
    checked before any changes, with SNS's rules and errors.
    """
    subscription = await ctx.broker.topics.set_subscription_attributes(
        await ctx.subscription(), request.attributes
    )
    return await described(ctx, subscription)


@operation("DELETE", "/v1/subscriptions/{id}", tag=TAG, status=204)
async def unsubscribe(ctx: RestContext, _: None) -> None:
    """Delete a subscription.

    Its delivery state goes with it: a pull subscription's messages in flight are
    forgotten, and its receipts delete nothing.
    """
    subscription = await ctx.subscription()
    await ctx.broker.topics.unsubscribe(ctx.account_id, subscription.arn)


@operation(
    "POST", "/v1/subscriptions/{id}/receive", tag=TAG, body=Receive, body_required=False,
    response=ReceivedMessages, errors=(403,),
)  # fmt: skip
async def receive_from_subscription(ctx: RestContext, request: Receive) -> ReceivedMessages:
    """Receive a pull subscription's messages.

    As from a queue: up to `max_messages` (1-100), each hidden from other receivers for
    the visibility timeout (default: the subscription's VisibilityTimeout); with
    `wait_seconds` (up to 20) the call waits for the first. Messages its filter policy
    does not match are never delivered. Other subscriptions are a 400.
    """
    consumable = ctx.broker.pulls.consumable(await ctx.subscription())
    return await receive_from(ctx.broker, consumable, request)


@operation(
    "POST", "/v1/subscriptions/{id}/delete", tag=TAG, body=DeleteMessages,
    response=EntryResults,
)  # fmt: skip
async def delete_from_subscription(ctx: RestContext, request: DeleteMessages) -> EntryResults:
    """Delete a pull subscription's received messages.

    Up to 100 receipt handles, as on a queue: a receipt from before the message was
    received again (or from before a seek) succeeds and deletes nothing.
    """
    consumable = ctx.broker.pulls.consumable(await ctx.subscription())
    return await delete_from(ctx.broker, consumable, request)


@operation(
    "POST", "/v1/subscriptions/{id}/visibility", tag=TAG, body=ChangeVisibility,
    response=EntryResults,
)  # fmt: skip
async def change_subscription_visibility(
    ctx: RestContext, request: ChangeVisibility
) -> EntryResults:
    """Change visibility timeouts of a pull subscription's messages.

    Up to 100 entries, as on a queue; MessageNotInflight where the receipt is not the
    message's current delivery.
    """
    consumable = ctx.broker.pulls.consumable(await ctx.subscription())
    return await change_visibility_of(ctx.broker, consumable, request)


@operation("POST", "/v1/subscriptions/{id}/seek", tag=TAG, body=Seek, response=Sought)
async def seek(ctx: RestContext, request: Seek) -> Sought:
    """Move a pull subscription's cursor (replay, or skip ahead).

    To an `offset` of the topic's log (0 to its end), or to the first message published
    at or after `timestamp`, reading tiered segments from the archive where the local
    log no longer has them. Every message from there on is delivered again; what was in
    flight is forgotten, and its receipts delete nothing. Other subscriptions are a 400.
    """
    sought = await ctx.broker.pulls.seek(
        await ctx.subscription(), offset=request.offset, timestamp_ms=request.timestamp
    )
    return Sought(sought.offset, sought.end_offset)


async def described(
    ctx: RestContext, subscription: SubscriptionInfo, *, counted: bool = True
) -> Subscription:
    """The REST form of a subscription; with `counted`, a pull one's counts too."""
    stats = None
    if counted and subscription.protocol == "pull":
        counts = await ctx.broker.pulls.stats(subscription)
        stats = SubscriptionStats(visible=counts.visible, in_flight=counts.in_flight)
    return Subscription(
        id=subscription.id,
        arn=subscription.arn,
        topic=subscription.topic_name,
        topic_arn=subscription.topic_arn,
        protocol=subscription.protocol,
        endpoint=subscription.endpoint,
        pending=subscription.pending,
        created_timestamp=subscription.created_ms,
        attributes=await ctx.broker.topics.subscription_attributes(subscription),
        stats=stats,
    )
