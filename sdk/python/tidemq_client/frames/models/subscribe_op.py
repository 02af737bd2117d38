from typing import Literal

SubscribeOp = Literal["subscribe"]

SUBSCRIBE_OP_VALUES: set[SubscribeOp] = {
    "subscribe",
}


def check_subscribe_op(value: str) -> SubscribeOp:
    if value in SUBSCRIBE_OP_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {SUBSCRIBE_OP_VALUES!r}"
    )
