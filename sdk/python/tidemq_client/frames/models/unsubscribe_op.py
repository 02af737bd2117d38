from typing import Literal

UnsubscribeOp = Literal["unsubscribe"]

UNSUBSCRIBE_OP_VALUES: set[UnsubscribeOp] = {
    "unsubscribe",
}


def check_unsubscribe_op(value: str) -> UnsubscribeOp:
    if value in UNSUBSCRIBE_OP_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {UNSUBSCRIBE_OP_VALUES!r}"
    )
