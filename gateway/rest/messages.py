"""Message operations: send one or a batch, receive, delete, change visibility.

Messages are checked as the SQS API checks them (gateway/rest/message_fields.py). The
REST API adds batches of up to 100 entries (one log append, one Redis script each) and
named delay levels.
"""

from __future__ import annotations

from gateway.broker import EntryResults as BrokerResults
from gateway.broker import NewMessage
from gateway.rest.context import RestContext
from gateway.rest.errors import RestError, TooLarge, from_foreign
from gateway.rest.message_fields import (
    checked_message,
    received_message,
    sent_message,
    sent_result,
)
from gateway.rest.operations import operation
from gateway.rest.shapes.common import MAX_BATCH_ENTRIES, EntryResult, ErrorDetail
from gateway.rest.shapes.messages import (
    ChangeVisibility,
    DeleteMessages,
    EntryResults,
    Receive,
    ReceivedMessages,
    SendBatch,
    SendBatchResults,
    SendMessage,
    SendResult,
    SentMessage,
)
from gateway.sqs.actions.messages import message_size

TAG = "messages"


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
    message = checked_message(queue, request)
    limit_bytes = ctx.sqs.message_limit(queue)
    if message_size(message) > limit_bytes:
        raise TooLarge(
            "MessageTooLong",
            f"The message (body and attributes) must be shorter than {limit_bytes} bytes.",
        )
    [sent] = await ctx.broker.send(queue, [message])
    return sent_message(queue, message, sent)


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
    _check_batch_size(len(request.messages))
    queue = await ctx.queue()
    results: list[SendResult | None] = [None] * len(request.messages)
    valid: list[tuple[int, NewMessage]] = []
    for index, entry in enumerate(request.messages):
        try:
            valid.append((index, checked_message(queue, entry)))
        except RestError as exc:
            results[index] = SendResult(index, error=_detail(exc))
    total = sum(message_size(message) for _, message in valid)
    limit_bytes = ctx.sqs.message_limit(queue)
    if total > limit_bytes:
        raise TooLarge(
            "BatchRequestTooLong",
            f"Batch requests cannot be longer than {limit_bytes} bytes. "
            f"You have sent {total} bytes.",
        )
    sent = await ctx.broker.send(queue, [m for _, m in valid]) if valid else []
    for (index, message), one in zip(valid, sent, strict=True):
        results[index] = sent_result(index, queue, message, one)
    return SendBatchResults([r for r in results if r is not None])


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
    queue = await ctx.queue()
    received = await ctx.broker.receive(
        queue,
        max_messages=request.max_messages,
        visibility_timeout_ms=(
            queue.visibility_timeout_ms
            if request.visibility_timeout is None
            else request.visibility_timeout * 1000
        ),
        wait_ms=queue.receive_wait_ms
        if request.wait_seconds is None
        else request.wait_seconds * 1000,
    )
    return ReceivedMessages([received_message(m) for m in received])


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
    _check_batch_size(len(request.receipt_handles))
    queue = await ctx.queue()
    return _entry_results(await ctx.broker.delete_messages(queue, request.receipt_handles))


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
    _check_batch_size(len(request.entries))
    queue = await ctx.queue()
    changes = [(e.receipt_handle, e.visibility_timeout * 1000) for e in request.entries]
    return _entry_results(await ctx.broker.change_visibility(queue, changes))


def _check_batch_size(entries: int) -> None:
    if entries == 0:
        raise RestError("EmptyBatchRequest", "There should be at least one entry in the request.")
    if entries > MAX_BATCH_ENTRIES:
        raise RestError(
            "TooManyEntriesInBatchRequest",
            f"Maximum number of entries per request are {MAX_BATCH_ENTRIES}. "
            f"You have sent {entries}.",
        )


def _entry_results(errors: BrokerResults) -> EntryResults:
    return EntryResults(
        [
            EntryResult(i, None if error is None else _detail(from_foreign(error)))
            for i, error in enumerate(errors)
        ]
    )


def _detail(exc: RestError) -> ErrorDetail:
    return ErrorDetail(exc.code, exc.message)
