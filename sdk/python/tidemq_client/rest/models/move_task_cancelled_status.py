from typing import Literal

MoveTaskCancelledStatus = Literal["CANCELLING"]

MOVE_TASK_CANCELLED_STATUS_VALUES: set[MoveTaskCancelledStatus] = {
    "CANCELLING",
}


def check_move_task_cancelled_status(value: str) -> MoveTaskCancelledStatus:
    if value in MOVE_TASK_CANCELLED_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {MOVE_TASK_CANCELLED_STATUS_VALUES!r}"
    )
