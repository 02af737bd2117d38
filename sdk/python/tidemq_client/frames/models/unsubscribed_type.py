from typing import Literal

UnsubscribedType = Literal["unsubscribed"]

UNSUBSCRIBED_TYPE_VALUES: set[UnsubscribedType] = {
    "unsubscribed",
}


def check_unsubscribed_type(value: str) -> UnsubscribedType:
    if value in UNSUBSCRIBED_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {UNSUBSCRIBED_TYPE_VALUES!r}"
    )
