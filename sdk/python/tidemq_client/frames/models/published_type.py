from typing import Literal

PublishedType = Literal["published"]

PUBLISHED_TYPE_VALUES: set[PublishedType] = {
    "published",
}


def check_published_type(value: str) -> PublishedType:
    if value in PUBLISHED_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {PUBLISHED_TYPE_VALUES!r}"
    )
