from typing import Literal

SeekOp = Literal["seek"]

SEEK_OP_VALUES: set[SeekOp] = {
    "seek",
}


def check_seek_op(value: str) -> SeekOp:
    if value in SEEK_OP_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SEEK_OP_VALUES!r}")
