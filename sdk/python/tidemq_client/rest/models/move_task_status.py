from typing import Literal

MoveTaskStatus = Literal["CANCELLED", "CANCELLING", "COMPLETED", "FAILED", "RUNNING"]

MOVE_TASK_STATUS_VALUES: set[MoveTaskStatus] = {
    "CANCELLED",
    "CANCELLING",
    "COMPLETED",
    "FAILED",
    "RUNNING",
}


def check_move_task_status(value: str) -> MoveTaskStatus:
    if value in MOVE_TASK_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {MOVE_TASK_STATUS_VALUES!r}"
    )
