"""Message move tasks: redrive a dead-letter queue's messages (StartMessageMoveTask)."""

from __future__ import annotations

from gateway.core.queues import MoveTask, Queue, parse_queue_arn, queue_arn
from gateway.sqs.actions.context import Response, SqsContext, action
from gateway.sqs.errors import SqsError, invalid_parameter
from gateway.sqs.params import Params, optional_int, optional_str, required_str


@action("StartMessageMoveTask")
async def start_message_move_task(ctx: SqsContext, params: Params) -> Response:
    source = await _queue_by_arn(ctx, required_str(params, "SourceArn"), "SourceArn")
    destination_arn = optional_str(params, "DestinationArn")
    destination = (
        await _queue_by_arn(ctx, destination_arn, "DestinationArn") if destination_arn else None
    )
    rate = optional_int(params, "MaxNumberOfMessagesPerSecond", 1, 500)
    task = await ctx.broker.start_move_task(source, destination, rate)
    return {"TaskHandle": task.handle}


@action("CancelMessageMoveTask")
async def cancel_message_move_task(ctx: SqsContext, params: Params) -> Response:
    task = await ctx.broker.cancel_move_task(ctx.account_id, required_str(params, "TaskHandle"))
    return {"ApproximateNumberOfMessagesMoved": task.moved}


@action("ListMessageMoveTasks")
async def list_message_move_tasks(ctx: SqsContext, params: Params) -> Response:
    source = await _queue_by_arn(ctx, required_str(params, "SourceArn"), "SourceArn")
    max_results = optional_int(params, "MaxResults", 1, 10) or 1
    tasks = await ctx.broker.list_move_tasks(source, max_results)
    return {"Results": [_task_out(task) for task in tasks]}


async def _queue_by_arn(ctx: SqsContext, arn: str, parameter: str) -> Queue:
    parsed = parse_queue_arn(arn)
    if parsed is None:
        raise invalid_parameter(f"Value {arn} for parameter {parameter} is invalid.")
    account_id, name = parsed
    if account_id != ctx.account_id:
        raise SqsError("QueueDoesNotExist", "The specified queue does not exist.")
    return await ctx.broker.get_queue(account_id, name)


def _task_out(task: MoveTask) -> Response:
    out: Response = {
        "Status": task.status,
        "SourceArn": queue_arn(task.account_id, task.source_queue),
        "ApproximateNumberOfMessagesMoved": task.moved,
        "ApproximateNumberOfMessagesToMove": task.to_move,
        "StartedTimestamp": task.started_ms,
    }
    if task.status == "RUNNING":
        out["TaskHandle"] = task.handle
    if task.destination_queue is not None:
        out["DestinationArn"] = queue_arn(task.account_id, task.destination_queue)
    if task.max_per_second is not None:
        out["MaxNumberOfMessagesPerSecond"] = task.max_per_second
    if task.failure_reason is not None:
        out["FailureReason"] = task.failure_reason
    return out
