"""Message move tasks: redrive a dead-letter queue's messages (SQS StartMessageMoveTask)."""

from __future__ import annotations

from gateway.core.errors import CoreError
from gateway.core.queues import MoveTask as TaskRecord
from gateway.rest.context import RestContext
from gateway.rest.errors import Conflict
from gateway.rest.operations import operation
from gateway.rest.shapes.tasks import (
    ListMoveTasksQuery,
    MoveTask,
    MoveTaskCancelled,
    MoveTaskList,
    MoveTaskStarted,
    StartMoveTask,
)

TAG = "move-tasks"
_ACTIVE = ("RUNNING", "CANCELLING")


@operation(
    "POST",
    "/v1/queues/{name}/move-tasks",
    tag=TAG,
    body=StartMoveTask,
    body_required=False,
    response=MoveTaskStarted,
    status=201,
    errors=(409,),
)
async def start_move_task(ctx: RestContext, request: StartMoveTask) -> MoveTaskStarted:
    """Start moving a dead-letter queue's messages.

    The queue in the path must be some queue's dead-letter queue. Its messages go to
    `destination`, or each back to the queue it came from, at most `max_per_second`
    (1-500) a second. One task at a time per queue: starting another while one runs is a
    409 MoveTaskRunning.
    """
    source = await ctx.queue()
    destination = None
    if request.destination is not None:
        destination = await ctx.queue(request.destination)
    try:
        task = await ctx.broker.start_move_task(source, destination, request.max_per_second)
    except CoreError as exc:
        if exc.code != "InvalidParameterValue":
            raise
        # The same error also says the queue is no dead-letter queue; a running task
        # tells the two apart.
        listed = await ctx.broker.list_move_tasks(source, 1)
        if listed and listed[0].status in _ACTIVE:
            raise Conflict(
                "MoveTaskRunning",
                "A message move task is already running on this queue; only one at a time.",
            ) from None
        raise
    return MoveTaskStarted(task.handle)


@operation(
    "GET",
    "/v1/queues/{name}/move-tasks",
    tag=TAG,
    query=ListMoveTasksQuery,
    response=MoveTaskList,
)
async def list_move_tasks(ctx: RestContext, query: ListMoveTasksQuery) -> MoveTaskList:
    """List a queue's message move tasks.

    Its most recent tasks (at most `limit`, up to 10), newest first, with their progress.
    """
    source = await ctx.queue()
    tasks = await ctx.broker.list_move_tasks(source, query.limit)
    return MoveTaskList([_task(t) for t in tasks])


@operation(
    "POST", "/v1/move-tasks/{handle}/cancel", tag=TAG, response=MoveTaskCancelled, errors=(409,)
)
async def cancel_move_task(ctx: RestContext, _: None) -> MoveTaskCancelled:
    """Cancel a message move task.

    The task stops after its current round; the messages it moved stay moved. A task
    that has finished is a 409 MoveTaskNotRunning; a handle that names no task of the
    caller's account, a 404 ResourceNotFoundException.
    """
    handle = ctx.path_params["handle"]
    try:
        task = await ctx.broker.cancel_move_task(ctx.account_id, handle)
    except CoreError as exc:
        if exc.code != "InvalidParameterValue":
            raise
        # The one refusal of cancel besides a handle naming no task: not running.
        raise Conflict("MoveTaskNotRunning", exc.message) from exc
    return MoveTaskCancelled(handle, "CANCELLING", task.moved)


def _task(task: TaskRecord) -> MoveTask:
    return MoveTask(
        status=task.status,
        source=task.source_queue,
        moved=task.moved,
        to_move=task.to_move,
        started_timestamp=task.started_ms,
        task_handle=task.handle if task.status in _ACTIVE else None,
        destination=task.destination_queue,
        max_per_second=task.max_per_second,
        failure_reason=task.failure_reason,
    )
