from typing import Literal

CreditSetType = Literal["credit_set"]

CREDIT_SET_TYPE_VALUES: set[CreditSetType] = {
    "credit_set",
}


def check_credit_set_type(value: str) -> CreditSetType:
    if value in CREDIT_SET_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {CREDIT_SET_TYPE_VALUES!r}"
    )
