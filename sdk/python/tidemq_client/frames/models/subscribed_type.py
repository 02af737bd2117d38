from typing import Literal

SubscribedType = Literal["subscribed"]

SUBSCRIBED_TYPE_VALUES: set[SubscribedType] = {
    "subscribed",
}


def check_subscribed_type(value: str) -> SubscribedType:
    if value in SUBSCRIBED_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {SUBSCRIBED_TYPE_VALUES!r}"
    )
