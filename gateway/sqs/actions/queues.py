"""Queue actions: create, find, list, change, tag, purge and delete queues."""

from __future__ import annotations

from gateway.core import queue_urls
from gateway.sqs.actions.context import Response, SqsContext, action
from gateway.sqs.errors import SqsError, invalid_parameter, missing_parameter
from gateway.sqs.params import (
    Params,
    optional_int,
    optional_str,
    required_str,
    string_list,
    string_map,
)


@action("CreateQueue")
async def create_queue(ctx: SqsContext, params: Params) -> Response:
    if params.get("QueueName") is None:
        raise invalid_parameter(
            "Value for parameter QueueName is invalid. Reason: Must specify a queue name."
        )
    name = optional_str(params, "QueueName") or ""  # an empty name is the broker's to refuse
    attributes = string_map(params, "Attributes")
    tags = string_map(params, "tags")
    await ctx.broker.create_queue(ctx.account_id, name, attributes, tags)
    return {"QueueUrl": ctx.queue_url(name)}


@action("GetQueueUrl")
async def get_queue_url(ctx: SqsContext, params: Params) -> Response:
    name = required_str(params, "QueueName")
    owner = optional_str(params, "QueueOwnerAWSAccountId") or ctx.account_id
    _, name = queue_urls.resolve(name, ctx.account_id)
    queue = await ctx.permitted_queue(owner, name)
    return {"QueueUrl": ctx.queue_url(queue.name, queue.account_id)}


@action("ListQueues")
async def list_queues(ctx: SqsContext, params: Params) -> Response:
    prefix = optional_str(params, "QueueNamePrefix") or ""
    names = await ctx.broker.list_queues(ctx.account_id, prefix)
    return _page(ctx, params, names, "QueueUrls", ctx.account_id)


@action("ListDeadLetterSourceQueues")
async def list_dead_letter_source_queues(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    names = await ctx.broker.dead_letter_sources(queue)
    # SQS spells this one in lower case.
    return _page(ctx, params, names, "queueUrls", queue.account_id)


@action("DeleteQueue")
async def delete_queue(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    await ctx.broker.delete_queue(queue)
    return {}


@action("PurgeQueue")
async def purge_queue(ctx: SqsContext, params: Params) -> Response:
    await ctx.broker.purge_queue(await ctx.queue(params))
    return {}


@action("GetQueueAttributes")
async def get_queue_attributes(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    wanted = set(string_list(params, "AttributeNames"))
    stats = await ctx.broker.queue_stats(queue)
    everything = {
        **queue.all_attributes(),
        "QueueArn": queue.arn,
        "CreatedTimestamp": str(queue.created_ms // 1000),
        "LastModifiedTimestamp": str(queue.modified_ms // 1000),
        "ApproximateNumberOfMessages": str(stats.visible),
        "ApproximateNumberOfMessagesNotVisible": str(stats.in_flight),
        "ApproximateNumberOfMessagesDelayed": str(stats.delayed),
    }
    known = set(everything) | {
        "All",
        "RedrivePolicy",
        "RedriveAllowPolicy",
        "Policy",
        "KmsMasterKeyId",
    }
    unknown = wanted - known
    if unknown:
        raise SqsError("InvalidAttributeName", f"Unknown Attribute {sorted(unknown)[0]}.")
    if "All" not in wanted:
        everything = {k: v for k, v in everything.items() if k in wanted}
    return {"Attributes": everything} if everything else {}


@action("SetQueueAttributes")
async def set_queue_attributes(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    attributes = string_map(params, "Attributes")
    if not attributes:
        raise missing_parameter("Attributes")
    await ctx.broker.set_queue_attributes(queue, attributes)
    return {}


@action("TagQueue")
async def tag_queue(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    tags = string_map(params, "Tags")
    if not tags:
        raise missing_parameter("Tags")
    await ctx.broker.tag_queue(queue, tags)
    return {}


@action("UntagQueue")
async def untag_queue(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    if params.get("TagKeys") is None:
        raise missing_parameter("TagKeys")
    # An empty list is SQS's InvalidParameterValue, as an empty key is: the core's to say.
    await ctx.broker.untag_queue(queue, string_list(params, "TagKeys"))
    return {}


@action("ListQueueTags")
async def list_queue_tags(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    tags = await ctx.broker.queue_tags(queue)
    return {"Tags": tags} if tags else {}


def _page(
    ctx: SqsContext, params: Params, names: list[str], field: str, owner_account_id: str
) -> Response:
    """One page of queue URLs; NextToken is the last name returned."""
    max_results = optional_int(params, "MaxResults", 1, 1000)
    after = optional_str(params, "NextToken")
    if after is not None and max_results is None:
        raise SqsError("InvalidParameterValue", "NextToken can only be used with MaxResults.")
    names = [n for n in names if after is None or n > after]
    response: Response = {}
    if max_results is not None and len(names) > max_results:
        names = names[:max_results]
        response["NextToken"] = names[-1]
    response[field] = [ctx.queue_url(n, owner_account_id) for n in names]
    return response


@action("AddPermission")
async def add_permission(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    label = required_str(params, "Label")
    actions = string_list(params, "Actions")
    if not actions:
        raise missing_parameter("Actions")
    if params.get("AWSAccountIds") is None:
        # SQS names the accounts by what it makes of them, principals.
        raise missing_parameter("PrincipalId")
    accounts = string_list(params, "AWSAccountIds")
    await ctx.broker.add_permission(queue, label, accounts, actions)
    return {}


@action("RemovePermission")
async def remove_permission(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    label = required_str(params, "Label")
    await ctx.broker.remove_permission(queue, label)
    return {}
