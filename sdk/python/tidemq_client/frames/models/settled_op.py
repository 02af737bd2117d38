from typing import Literal

SettledOp = Literal["ack", "extend", "nack"]

SETTLED_OP_VALUES: set[SettledOp] = {
    "ack",
    "extend",
    "nack",
}


def check_settled_op(value: str) -> SettledOp:
    if value in SETTLED_OP_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {SETTLED_OP_VALUES!r}"
    )
