from typing import Literal

CursorSetType = Literal["cursor_set"]

CURSOR_SET_TYPE_VALUES: set[CursorSetType] = {
    "cursor_set",
}


def check_cursor_set_type(value: str) -> CursorSetType:
    if value in CURSOR_SET_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {CURSOR_SET_TYPE_VALUES!r}"
    )
