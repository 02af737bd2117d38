from typing import Literal

SettledType = Literal["settled"]

SETTLED_TYPE_VALUES: set[SettledType] = {
    "settled",
}


def check_settled_type(value: str) -> SettledType:
    if value in SETTLED_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {SETTLED_TYPE_VALUES!r}"
    )
