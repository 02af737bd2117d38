"""Queue operations: create, list, describe, change, purge, tag and delete queues."""

from __future__ import annotations

from gateway.core.partitioning import with_partitions
from gateway.core.queues import Queue as QueueInfo
from gateway.rest.context import RestContext
from gateway.rest.operations import operation
from gateway.rest.shapes.queues import (
    AddTags,
    CreateQueue,
    DeadLetterSources,
    ListQueuesQuery,
    Queue,
    QueueList,
    QueueRef,
    QueueStats,
    RemoveTags,
    SetQueueAttributes,
    TagList,
)

TAG = "queues"


@operation("GET", "/v1/queues", tag=TAG, query=ListQueuesQuery, response=QueueList)
async def list_queues(ctx: RestContext, query: ListQueuesQuery) -> QueueList:
    """List queues.

    The caller's queues in name order, those starting with `prefix` only, at most `limit`
    of them after the name `after`; `next_after` is there when more follow.
    """
    names = await ctx.broker.list_queues(ctx.account_id, query.prefix)
    if query.after is not None:
        names = [n for n in names if n > query.after]
    page = names[: query.limit]
    more = page[-1] if len(names) > query.limit else None
    return QueueList([QueueRef(n, ctx.queue_url(n)) for n in page], more)


@operation(
    "POST", "/v1/queues", tag=TAG, body=CreateQueue, response=Queue, status=201, errors=(409,)
)
async def create_queue(ctx: RestContext, request: CreateQueue) -> Queue:
    """Create a queue.

    A `.fifo` name makes a FIFO queue (with the attribute `FifoQueue` `"true"`). Creating a
    queue that exists with the same attributes returns it; with other attributes it is a
    409 QueueNameExists, and within 60 s of deleting a queue of that name a 409
    QueueDeletedRecently, as on SQS. `partitions` (or the attribute `Partitions`) splits
    its log, fixed once it is created: a PATCH may not change it.
    """
    attributes = with_partitions(
        request.attributes or {}, request.partitions, "InvalidParameterValue"
    )
    queue = await ctx.broker.create_queue(
        ctx.account_id, request.name, attributes, request.tags or {}
    )
    return await _described(ctx, queue)


@operation("GET", "/v1/queues/{name}", tag=TAG, response=Queue)
async def get_queue(ctx: RestContext, _: None) -> Queue:
    """Describe a queue.

    Its attributes with their defaults, its ARN, when it was created and last changed,
    and its approximate counts.
    """
    return await _described(ctx, await ctx.queue())


@operation("PATCH", "/v1/queues/{name}", tag=TAG, body=SetQueueAttributes, response=Queue)
async def set_queue_attributes(ctx: RestContext, request: SetQueueAttributes) -> Queue:
    """Change a queue's attributes.

    The given attributes change and the rest stay; an empty RedrivePolicy or
    RedriveAllowPolicy removes it. A queue's type (FifoQueue) cannot change.
    """
    changed = await ctx.broker.set_queue_attributes(await ctx.queue(), request.attributes)
    return await _described(ctx, changed)


@operation("DELETE", "/v1/queues/{name}", tag=TAG, status=204)
async def delete_queue(ctx: RestContext, _: None) -> None:
    """Delete a queue.

    Its messages and delivery state go at once; its name can be used again after 60 s.
    """
    await ctx.broker.delete_queue(await ctx.queue())


@operation("POST", "/v1/queues/{name}/purge", tag=TAG, status=204, errors=(409,))
async def purge_queue(ctx: RestContext, _: None) -> None:
    """Purge a queue.

    Deletes every message sent so far. At most once a minute: another purge within 60 s
    is a 409 PurgeQueueInProgress.
    """
    await ctx.broker.purge_queue(await ctx.queue())


@operation("GET", "/v1/queues/{name}/stats", tag=TAG, response=QueueStats)
async def get_queue_stats(ctx: RestContext, _: None) -> QueueStats:
    """Count a queue's messages: visible, in flight, delayed (approximately)."""
    return await _stats(ctx, await ctx.queue())


@operation("GET", "/v1/queues/{name}/tags", tag=TAG, response=TagList)
async def list_queue_tags(ctx: RestContext, _: None) -> TagList:
    """List a queue's tags."""
    return TagList(await ctx.broker.queue_tags(await ctx.queue()))


@operation("PUT", "/v1/queues/{name}/tags", tag=TAG, body=AddTags, response=TagList)
async def tag_queue(ctx: RestContext, request: AddTags) -> TagList:
    """Add or replace tags.

    The given tags are set; the others stay. Answers with all of the queue's tags.
    """
    queue = await ctx.queue()
    await ctx.broker.tag_queue(queue, request.tags)
    return TagList(await ctx.broker.queue_tags(queue))


@operation("DELETE", "/v1/queues/{name}/tags", tag=TAG, body=RemoveTags, response=TagList)
async def untag_queue(ctx: RestContext, request: RemoveTags) -> TagList:
    """Remove tags.

    Removes the tags with the given keys (keys the queue lacks are ignored). Answers with
    the queue's remaining tags.
    """
    queue = await ctx.queue()
    await ctx.broker.untag_queue(queue, request.keys)
    return TagList(await ctx.broker.queue_tags(queue))


@operation("GET", "/v1/queues/{name}/dead-letter-sources", tag=TAG, response=DeadLetterSources)
async def list_dead_letter_sources(ctx: RestContext, _: None) -> DeadLetterSources:
    """List the queues whose dead-letter queue this is."""
    names = await ctx.broker.dead_letter_sources(await ctx.queue())
    return DeadLetterSources([QueueRef(n, ctx.queue_url(n)) for n in names])


async def _described(ctx: RestContext, queue: QueueInfo) -> Queue:
    return Queue(
        name=queue.name,
        url=ctx.queue_url(queue.name),
        arn=queue.arn,
        fifo=queue.fifo,
        created_timestamp=queue.created_ms,
        last_modified_timestamp=queue.modified_ms,
        partitions=queue.partitions,
        attributes=queue.all_attributes(),
        stats=await _stats(ctx, queue),
    )


async def _stats(ctx: RestContext, queue: QueueInfo) -> QueueStats:
    stats = await ctx.broker.queue_stats(queue)
    return QueueStats(visible=stats.visible, in_flight=stats.in_flight, delayed=stats.delayed)
