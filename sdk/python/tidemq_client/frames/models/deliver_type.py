from typing import Literal

DeliverType = Literal["deliver"]

DELIVER_TYPE_VALUES: set[DeliverType] = {
    "deliver",
}


def check_deliver_type(value: str) -> DeliverType:
    if value in DELIVER_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {DELIVER_TYPE_VALUES!r}"
    )
