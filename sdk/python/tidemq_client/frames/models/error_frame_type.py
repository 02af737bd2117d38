from typing import Literal

ErrorFrameType = Literal["error"]

ERROR_FRAME_TYPE_VALUES: set[ErrorFrameType] = {
    "error",
}


def check_error_frame_type(value: str) -> ErrorFrameType:
    if value in ERROR_FRAME_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {ERROR_FRAME_TYPE_VALUES!r}"
    )
