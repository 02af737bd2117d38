from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.create_subscription_protocol import (
    CreateSubscriptionProtocol,
    check_create_subscription_protocol,
)
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.create_subscription_attributes_type_0 import (
        CreateSubscriptionAttributesType0,
    )


T = TypeVar("T", bound="CreateSubscription")


@_attrs_define
class CreateSubscription:
    """Subscribe to the topic. `pull` subscriptions are received from with this API and
    the WebSocket API; TideMQ delivers the others itself.

        Attributes:
            protocol (CreateSubscriptionProtocol):
            endpoint (str): pull: the subscription's name within the topic (letters, digits, `-`, `_`, `.`); sqs: the
                queue's ARN; http, https: the webhook's URL.
            attributes (CreateSubscriptionAttributesType0 | None | Unset):
    """

    protocol: CreateSubscriptionProtocol
    endpoint: str
    attributes: CreateSubscriptionAttributesType0 | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.create_subscription_attributes_type_0 import (
            CreateSubscriptionAttributesType0,
        )

        protocol: str = self.protocol

        endpoint = self.endpoint

        attributes: dict[str, Any] | None | Unset
        if isinstance(self.attributes, Unset):
            attributes = UNSET
        elif isinstance(self.attributes, CreateSubscriptionAttributesType0):
            attributes = self.attributes.to_dict()
        else:
            attributes = self.attributes

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "protocol": protocol,
                "endpoint": endpoint,
            }
        )
        if attributes is not UNSET:
            field_dict["attributes"] = attributes

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.create_subscription_attributes_type_0 import (
            CreateSubscriptionAttributesType0,
        )

        d = dict(src_dict)
        protocol = check_create_subscription_protocol(d.pop("protocol"))

        endpoint = d.pop("endpoint")

        def _parse_attributes(
            data: object,
        ) -> CreateSubscriptionAttributesType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                attributes_type_0 = CreateSubscriptionAttributesType0.from_dict(data)

                return attributes_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CreateSubscriptionAttributesType0 | None | Unset, data)

        attributes = _parse_attributes(d.pop("attributes", UNSET))

        create_subscription = cls(
            protocol=protocol,
            endpoint=endpoint,
            attributes=attributes,
        )

        return create_subscription
