from typing import Literal

CreateSubscriptionProtocol = Literal["http", "https", "pull", "sqs"]

CREATE_SUBSCRIPTION_PROTOCOL_VALUES: set[CreateSubscriptionProtocol] = {
    "http",
    "https",
    "pull",
    "sqs",
}


def check_create_subscription_protocol(value: str) -> CreateSubscriptionProtocol:
    if value in CREATE_SUBSCRIPTION_PROTOCOL_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {CREATE_SUBSCRIPTION_PROTOCOL_VALUES!r}"
    )
