from typing import Literal

AckOp = Literal["ack"]

ACK_OP_VALUES: set[AckOp] = {
    "ack",
}


def check_ack_op(value: str) -> AckOp:
    if value in ACK_OP_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ACK_OP_VALUES!r}")
