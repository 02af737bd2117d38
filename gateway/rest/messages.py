"""Message operations: send one or a batch, receive, delete, change visibility.

Messages are checked by the core, as on every API (gateway/native/conversions.py). The
REST API adds batches of up to 100 entries (one log append, one Redis script each) and
named delay levels.
"""

from __future__ import annotations

from gateway.core.broker import Broker
from gateway.core.consumables import Consumable
from gateway.core.queues import Queue
from gateway.native import conversions
from gateway.native.messages import (
    ChangeVisibility,
    DeleteMessages,
    EntryResults,
    Receive,
    ReceivedMessages,
    SendBatch,
    SendBatchResults,
    SendMessage,
    SentMessage,
)
from gateway.rest.context import RestContext
from gateway.rest.operations import operation

TAG = "messages"
# What messages are received from: a queue, or a topic's pull subscription.
Source = Queue | Consumable


@operation(
    "POST",
    "/v1/queues/{name}/messages",
    tag=TAG,
    body=SendMessage,
    response=SentMessage,
    status=201,
)
async def send_message(ctx: RestContext, request: SendMessage) -> SentMessage:
    """Send a message.

    Acknowledged once the message is durable. `delay_seconds` (0-900) or `delay_level`
    (1-18, up to two hours) holds it back; FIFO queues need `group_id` (and `dedup_id`
    unless the queue has ContentBasedDeduplication), and a duplicate within five minutes
    answers with the first send's `message_id` and `sequence_number`. A message over the
    queue's MaximumMessageSize (body and attributes) is a 413 MessageTooLong.
    """
    queue = await ctx.queue()
    sent = await ctx.broker.send_message(queue, request, conversions.FIELD_NAMES)
    return conversions.sent_message(sent)


@operation(
    "POST",
    "/v1/queues/{name}/messages/batch",
    tag=TAG,
    body=SendBatch,
    response=SendBatchResults,
)
async def send_message_batch(ctx: RestContext, request: SendBatch) -> SendBatchResults:
    """Send up to 100 messages.

    One log append for all of them. Each entry succeeds or fails on its own (`results`,
    in request order, carry `message_id` or `error`); the whole request is refused, with
    nothing sent, when it is malformed, has no or more than 100 entries, or its messages
    add up to more than the queue's MaximumMessageSize (413 BatchRequestTooLong).
    """
    conversions.check_batch_size(len(request.messages))
    queue = await ctx.queue()
    results = await ctx.broker.send_batch(queue, request.messages, conversions.FIELD_NAMES)
    return SendBatchResults(conversions.send_results(results))


@operation(
    "POST",
    "/v1/queues/{name}/messages/receive",
    tag=TAG,
    body=Receive,
    body_required=False,
    response=ReceivedMessages,
    errors=(403,),
)
async def receive_messages(ctx: RestContext, request: Receive) -> ReceivedMessages:
    """Receive messages.

    Up to `max_messages` (1-100), each hidden from other receivers for the visibility
    timeout. With `wait_seconds` (up to 20) the call waits for the first message and
    answers as soon as there is one. Every message comes with all its attributes. A queue
    with SQS's quota of messages in flight (120,000; FIFO 20,000) refuses with 403
    OverLimit.
    """
    return await receive_from(ctx.broker, await ctx.queue(), request)


@operation(
    "POST",
    "/v1/queues/{name}/messages/delete",
    tag=TAG,
    body=DeleteMessages,
    response=EntryResults,
)
async def delete_messages(ctx: RestContext, request: DeleteMessages) -> EntryResults:
    """Delete received messages.

    Up to 100 receipt handles, each deleting the delivery it names. A receipt from before
    the message was received again succeeds and deletes nothing, as on SQS; a forged one,
    or one of another queue, fails with ReceiptHandleIsInvalid.
    """
    return await delete_from(ctx.broker, await ctx.queue(), request)


@operation(
    "POST",
    "/v1/queues/{name}/messages/visibility",
    tag=TAG,
    body=ChangeVisibility,
    response=EntryResults,
)
async def change_visibility(ctx: RestContext, request: ChangeVisibility) -> EntryResults:
    """Change messages' visibility timeouts.

    Up to 100 entries; each message becomes visible again `visibility_timeout` seconds
    from now (0: at once). MessageNotInflight where the receipt is not the message's
    current delivery.
    """
    return await change_visibility_of(ctx.broker, await ctx.queue(), request)


# What a queue's routes and a pull subscription's (gateway/rest/subscriptions.py) share.


async def receive_from(broker: Broker, source: Source, request: Receive) -> ReceivedMessages:
    received = await broker.receive(
        source,
        max_messages=request.max_messages,
        visibility_timeout_ms=(
            None if request.visibility_timeout is None else request.visibility_timeout * 1000
        ),
        wait_ms=None if request.wait_seconds is None else request.wait_seconds * 1000,
    )
    return ReceivedMessages([conversions.received_message(m) for m in received])


async def delete_from(broker: Broker, source: Source, request: DeleteMessages) -> EntryResults:
    conversions.check_batch_size(len(request.receipt_handles))
    return conversions.entry_results(await broker.delete_messages(source, request.receipt_handles))


async def change_visibility_of(
    broker: Broker, source: Source, request: ChangeVisibility
) -> EntryResults:
    conversions.check_batch_size(len(request.entries))
    changes = [(e.receipt_handle, e.visibility_timeout * 1000) for e in request.entries]
    return conversions.entry_results(await broker.change_visibility(source, changes))
