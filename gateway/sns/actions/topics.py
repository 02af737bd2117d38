"""SNS actions on topics: create, delete, list, attributes, tags and permissions."""

from __future__ import annotations

from typing import Any

from gateway.sns.actions.context import SnsContext
from gateway.sns.params import attributes_map, required, tag_list

Result = dict[str, Any]


async def create_topic(ctx: SnsContext, params: dict[str, Any]) -> Result:
    topic = await ctx.broker.topics.create_topic(
        ctx.caller(),
        required(params, "Name"),
        attributes_map(params.get("Attributes")),
        tag_list(params.get("Tags")),
    )
    return {"TopicArn": topic.arn}


async def delete_topic(ctx: SnsContext, params: dict[str, Any]) -> Result:
    await ctx.broker.topics.delete_topic(ctx.caller(), required(params, "TopicArn"))
    return {}


async def list_topics(ctx: SnsContext, params: dict[str, Any]) -> Result:
    page = await ctx.broker.topics.list_topics(ctx.caller(), params.get("NextToken"))
    result: Result = {"Topics": [{"TopicArn": arn} for arn in page.items]}
    if page.next_token is not None:
        result["NextToken"] = page.next_token
    return result


async def get_topic_attributes(ctx: SnsContext, params: dict[str, Any]) -> Result:
    topic = await ctx.topic(required(params, "TopicArn"))
    return {"Attributes": await ctx.broker.topics.topic_attributes(topic)}


async def set_topic_attributes(ctx: SnsContext, params: dict[str, Any]) -> Result:
    topic = await ctx.topic(required(params, "TopicArn"))
    value = params.get("AttributeValue") or ""
    await ctx.broker.topics.set_topic_attribute(topic, required(params, "AttributeName"), value)
    return {}


async def tag_resource(ctx: SnsContext, params: dict[str, Any]) -> Result:
    topic = await ctx.topic(required(params, "ResourceArn"), "TagResource")
    await ctx.broker.topics.tag(topic, tag_list(required(params, "Tags")))
    return {}


async def untag_resource(ctx: SnsContext, params: dict[str, Any]) -> Result:
    topic = await ctx.topic(required(params, "ResourceArn"), "UntagResource")
    await ctx.broker.topics.untag(topic, list(required(params, "TagKeys")))
    return {}


async def list_tags_for_resource(ctx: SnsContext, params: dict[str, Any]) -> Result:
    topic = await ctx.topic(required(params, "ResourceArn"), "ListTagsForResource")
    tags = await ctx.broker.topics.tags(topic)
    return {"Tags": [{"Key": k, "Value": v} for k, v in sorted(tags.items())]}


async def add_permission(ctx: SnsContext, params: dict[str, Any]) -> Result:
    topic = await ctx.topic(required(params, "TopicArn"))
    await ctx.broker.topics.add_permission(
        topic,
        required(params, "Label"),
        list(required(params, "AWSAccountId")),
        list(required(params, "ActionName")),
    )
    return {}


async def remove_permission(ctx: SnsContext, params: dict[str, Any]) -> Result:
    topic = await ctx.topic(required(params, "TopicArn"))
    await ctx.broker.topics.remove_permission(topic, required(params, "Label"))
    return {}
