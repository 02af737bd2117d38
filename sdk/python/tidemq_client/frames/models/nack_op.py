from typing import Literal

NackOp = Literal["nack"]

NACK_OP_VALUES: set[NackOp] = {
    "nack",
}


def check_nack_op(value: str) -> NackOp:
    if value in NACK_OP_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {NACK_OP_VALUES!r}")
