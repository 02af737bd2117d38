"""Message move task shapes: redrive a dead-letter queue's messages."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta, Struct

from gateway.native.common import QueueName

TaskHandle = Annotated[
    str, Meta(description="The `task_handle` a start answered with.", max_length=512)
]


class StartMoveTask(Struct, forbid_unknown_fields=True):
    """Moves the dead-letter queue's messages to `destination`, or each back to the queue
    it came from."""

    destination: QueueName | None = None
    max_per_second: Annotated[int, Meta(ge=1, le=500)] | None = None


class MoveTaskStarted(Struct):
    task_handle: str


class MoveTask(Struct, omit_defaults=True):
    status: Literal["RUNNING", "COMPLETED", "CANCELLING", "CANCELLED", "FAILED"]
    source: str
    moved: int
    to_move: int
    started_timestamp: Annotated[int, Meta(description="ms since the epoch")]
    task_handle: Annotated[str, Meta(description="While the task runs.")] | None = None
    destination: str | None = None
    max_per_second: int | None = None
    failure_reason: str | None = None


class MoveTaskList(Struct):
    """The queue's last ten tasks, newest first."""

    tasks: list[MoveTask]


class ListMoveTasksQuery(Struct, forbid_unknown_fields=True):
    limit: Annotated[int, Meta(ge=1, le=10)] = 10


class MoveTaskCancelled(Struct):
    task_handle: str
    status: Literal["CANCELLING"]
    moved: int
