"""Topic operations: create, list, describe, change and delete topics; publish one
message or a batch; subscribe and list a topic's subscriptions.

The operations are SNS's (gateway/core/topics.py), with SNS's attribute names and error
codes; topics are named by bare names, the caller's own.
"""

from __future__ import annotations

from gateway.core.errors import CoreError
from gateway.core.partitioning import with_partitions
from gateway.core.topics import Topic as TopicInfo
from gateway.native import conversions
from gateway.native.messages import SendBatch, SendBatchResults, SendMessage
from gateway.rest.context import RestContext
from gateway.rest.operations import operation
from gateway.rest.shapes.topics import (
    CreateSubscription,
    CreateTopic,
    ListSubscriptionsQuery,
    ListTopicsQuery,
    PublishedMessage,
    SetTopicAttributes,
    Subscription,
    SubscriptionList,
    Topic,
    TopicList,
    TopicRef,
)
from gateway.rest.subscriptions import described

TAG = "topics"


@operation("GET", "/v1/topics", tag=TAG, query=ListTopicsQuery, response=TopicList)
async def list_topics(ctx: RestContext, query: ListTopicsQuery) -> TopicList:
    """List topics.

    The caller's topics in name order, at most `limit` of them after the name `after`;
    `next_after` is there when more follow.
    """
    found = await ctx.broker.topics.topics_page(ctx.account_id, query.after or "", query.limit + 1)
    page = found[: query.limit]
    more = page[-1].name if len(found) > query.limit else None
    return TopicList([TopicRef(t.name, t.arn) for t in page], more)


@operation("POST", "/v1/topics", tag=TAG, body=CreateTopic, response=Topic, status=201)
async def create_topic(ctx: RestContext, request: CreateTopic) -> Topic:
    """Create a topic.

    A `.fifo` name makes a FIFO topic (with the attribute `FifoTopic` `"true"`). Creating
    a topic that exists with the same attributes returns it, as SNS's CreateTopic does;
    other attributes are a 400 InvalidParameter.
    """
    attributes = with_partitions(request.attributes or {}, request.partitions, "InvalidParameter")
    topic = await ctx.broker.topics.create_topic(
        ctx.account_id, request.name, attributes, request.tags or {}
    )
    return await _described(ctx, topic)


@operation("GET", "/v1/topics/{name}", tag=TAG, response=Topic)
async def get_topic(ctx: RestContext, _: None) -> Topic:
    """Describe a topic.

    Its attributes as SNS shows them, with how many subscriptions are confirmed and
    pending.
    """
    return await _described(ctx, await ctx.topic())


@operation("PATCH", "/v1/topics/{name}", tag=TAG, body=SetTopicAttributes, response=Topic)
async def set_topic_attributes(ctx: RestContext, request: SetTopicAttributes) -> Topic:
    """Change a topic's attributes.

    The given attributes change (an empty value removes one) and the rest stay; all are
    checked before any changes. A topic's type (FifoTopic) cannot change.
    """
    topic = await ctx.broker.topics.set_topic_attributes(await ctx.topic(), request.attributes)
    return await _described(ctx, topic)


@operation("DELETE", "/v1/topics/{name}", tag=TAG, status=204)
async def delete_topic(ctx: RestContext, _: None) -> None:
    """Delete a topic.

    Its subscriptions and its messages go with it, at once; the name can be used again
    straight away, as on SNS.
    """
    topic = await ctx.topic()
    await ctx.broker.topics.delete_topic(ctx.account_id, topic.arn)


@operation(
    "POST", "/v1/topics/{name}/messages", tag=TAG, body=SendMessage, response=PublishedMessage,
    status=201,
)  # fmt: skip
async def publish(ctx: RestContext, request: SendMessage) -> PublishedMessage:
    """Publish a message.

    Acknowledged once the message is durable in the topic's log; every subscription gets
    it from there. `subject` is SNS's Subject; FIFO topics need `group_id` (and
    `dedup_id` unless the topic has ContentBasedDeduplication), and a duplicate within
    five minutes answers with the first publish's `message_id` and `sequence_number`.
    Topics take no delays and no system attributes. At most 256 KiB of body and
    attributes, as on SNS.
    """
    topic = await ctx.topic()
    [result] = await ctx.broker.topics.publish_drafts(topic, [request], conversions.FIELD_NAMES)
    if isinstance(result, CoreError):
        raise result
    return PublishedMessage(result.message_id, result.sequence_number)


@operation(
    "POST", "/v1/topics/{name}/messages/batch", tag=TAG, body=SendBatch,
    response=SendBatchResults,
)  # fmt: skip
async def publish_batch(ctx: RestContext, request: SendBatch) -> SendBatchResults:
    """Publish up to 100 messages.

    One log append for all of them. Each entry succeeds or fails on its own (`results`,
    in request order, carry `message_id` or `error`); the whole request is refused, with
    nothing published, when it is malformed or has no or more than 100 entries.
    """
    conversions.check_batch_size(len(request.messages))
    topic = await ctx.topic()
    results = await ctx.broker.topics.publish_drafts(
        topic, request.messages, conversions.FIELD_NAMES
    )
    return SendBatchResults(conversions.publish_results(results))


@operation(
    "POST", "/v1/topics/{name}/subscriptions", tag=TAG, body=CreateSubscription,
    response=Subscription, status=201,
)  # fmt: skip
async def subscribe(ctx: RestContext, request: CreateSubscription) -> Subscription:
    """Subscribe to a topic.

    A `pull` subscription (named by its `endpoint`) gets every message published from now
    on, to receive with /v1/subscriptions/{id}/receive or over WebSocket; an `sqs`
    subscription copies them into the queue whose ARN is the endpoint; `http` and `https`
    POST them to a webhook, once it confirmed the subscription. Subscribing an endpoint
    that is subscribed already returns its subscription (with other attributes: a 400).
    """
    subscription, _ = await ctx.broker.topics.subscribe(
        ctx.account_id,
        await ctx.topic(),
        request.protocol,
        request.endpoint,
        request.attributes or {},
    )
    return await described(ctx, subscription)


@operation(
    "GET", "/v1/topics/{name}/subscriptions", tag=TAG, query=ListSubscriptionsQuery,
    response=SubscriptionList,
)  # fmt: skip
async def list_subscriptions(ctx: RestContext, query: ListSubscriptionsQuery) -> SubscriptionList:
    """List a topic's subscriptions.

    In id order, at most `limit` of them after the id `after`; `next_after` is there when
    more follow.
    """
    topic = await ctx.topic()
    found = await ctx.broker.topics.subscriptions_page(topic, query.after or "", query.limit + 1)
    page = found[: query.limit]
    more = page[-1].id if len(found) > query.limit else None
    return SubscriptionList([await described(ctx, s, counted=False) for s in page], more)


async def _described(ctx: RestContext, topic: TopicInfo) -> Topic:
    return Topic(
        name=topic.name,
        arn=topic.arn,
        fifo=topic.fifo,
        created_timestamp=topic.created_ms,
        partitions=topic.partitions,
        attributes=await ctx.broker.topics.topic_attributes(topic),
    )
