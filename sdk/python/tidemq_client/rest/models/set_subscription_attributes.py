from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.set_subscription_attributes_attributes import (
        SetSubscriptionAttributesAttributes,
    )


T = TypeVar("T", bound="SetSubscriptionAttributes")


@_attrs_define
class SetSubscriptionAttributes:
    """
    Attributes:
        attributes (SetSubscriptionAttributesAttributes): SNS's subscription attribute names and string values:
            FilterPolicy, FilterPolicyScope, RedrivePolicy, RawMessageDelivery (sqs, http, https), DeliveryPolicy (http,
            https) and, for pull subscriptions, VisibilityTimeout (seconds, default 30) and a RedrivePolicy with
            `maxReceiveCount`.
    """

    attributes: SetSubscriptionAttributesAttributes

    def to_dict(self) -> dict[str, Any]:
        attributes = self.attributes.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "attributes": attributes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.set_subscription_attributes_attributes import (
            SetSubscriptionAttributesAttributes,
        )

        d = dict(src_dict)
        attributes = SetSubscriptionAttributesAttributes.from_dict(d.pop("attributes"))

        set_subscription_attributes = cls(
            attributes=attributes,
        )

        return set_subscription_attributes
