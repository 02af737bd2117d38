"""Message move tasks: redrive a dead-letter queue's messages (StartMessageMoveTask)."""

from __future__ import annotations

from control_plane.arns import parse_queue_arn, queue_arn
from control_plane.move_tasks import MoveTask, parse_handle
from control_plane.queues import QueueInfo
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
    task = await ctx.broker.move_tasks.start(source, destination, rate)
    return {"TaskHandle": task.handle}


@action("CancelMessageMoveTask")
async def cancel_message_move_task(ctx: SqsContext, params: Params) -> Response:
    account_id, _, task_id = parse_handle(required_str(params, "TaskHandle"))
    if account_id != ctx.account_id:
        raise SqsError(
            "ResourceNotFoundException", "The task handle does not name a message move task."
        )
    task = await ctx.broker.control.move_tasks.cancel(account_id, task_id)
    return {"ApproximateNumberOfMessagesMoved": task.moved}


@action("ListMessageMoveTasks")
async def list_message_move_tasks(ctx: SqsContext, params: Params) -> Response:
    source = await _queue_by_arn(ctx, required_str(params, "SourceArn"), "SourceArn")
    max_results = optional_int(params, "MaxResults", 1, 10) or 1
    tasks = await ctx.broker.control.move_tasks.list(source.account_id, source.name, max_results)
    return {"Results": [_task_out(task) for task in tasks]}


async def _queue_by_arn(ctx: SqsContext, arn: str, parameter: str) -> QueueInfo:
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
