from typing import Literal

ExtendOp = Literal["extend"]

EXTEND_OP_VALUES: set[ExtendOp] = {
    "extend",
}


def check_extend_op(value: str) -> ExtendOp:
    if value in EXTEND_OP_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {EXTEND_OP_VALUES!r}")
