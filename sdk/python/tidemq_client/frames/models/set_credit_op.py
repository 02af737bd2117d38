from typing import Literal

SetCreditOp = Literal["credit"]

SET_CREDIT_OP_VALUES: set[SetCreditOp] = {
    "credit",
}


def check_set_credit_op(value: str) -> SetCreditOp:
    if value in SET_CREDIT_OP_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {SET_CREDIT_OP_VALUES!r}"
    )
