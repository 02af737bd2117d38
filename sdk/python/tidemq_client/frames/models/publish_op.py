from typing import Literal

PublishOp = Literal["publish"]

PUBLISH_OP_VALUES: set[PublishOp] = {
    "publish",
}


def check_publish_op(value: str) -> PublishOp:
    if value in PUBLISH_OP_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {PUBLISH_OP_VALUES!r}"
    )
