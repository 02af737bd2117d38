from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.subscription_attributes import SubscriptionAttributes
    from ..models.subscription_stats import SubscriptionStats


T = TypeVar("T", bound="Subscription")


@_attrs_define
class Subscription:
    """A subscription: its attributes as SNS's GetSubscriptionAttributes shows them.

    Attributes:
        id (str):
        arn (str):
        topic (str):
        topic_arn (str):
        protocol (str):
        endpoint (str):
        pending (bool): http, https: waiting for confirmation.
        created_timestamp (int): ms since the epoch
        attributes (SubscriptionAttributes):
        stats (None | SubscriptionStats | Unset):
    """

    id: str
    arn: str
    topic: str
    topic_arn: str
    protocol: str
    endpoint: str
    pending: bool
    created_timestamp: int
    attributes: SubscriptionAttributes
    stats: None | SubscriptionStats | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.subscription_stats import SubscriptionStats

        id = self.id

        arn = self.arn

        topic = self.topic

        topic_arn = self.topic_arn

        protocol = self.protocol

        endpoint = self.endpoint

        pending = self.pending

        created_timestamp = self.created_timestamp

        attributes = self.attributes.to_dict()

        stats: dict[str, Any] | None | Unset
        if isinstance(self.stats, Unset):
            stats = UNSET
        elif isinstance(self.stats, SubscriptionStats):
            stats = self.stats.to_dict()
        else:
            stats = self.stats

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "arn": arn,
                "topic": topic,
                "topic_arn": topic_arn,
                "protocol": protocol,
                "endpoint": endpoint,
                "pending": pending,
                "created_timestamp": created_timestamp,
                "attributes": attributes,
            }
        )
        if stats is not UNSET:
            field_dict["stats"] = stats

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.subscription_attributes import SubscriptionAttributes
        from ..models.subscription_stats import SubscriptionStats

        d = dict(src_dict)
        id = d.pop("id")

        arn = d.pop("arn")

        topic = d.pop("topic")

        topic_arn = d.pop("topic_arn")

        protocol = d.pop("protocol")

        endpoint = d.pop("endpoint")

        pending = d.pop("pending")

        created_timestamp = d.pop("created_timestamp")

        attributes = SubscriptionAttributes.from_dict(d.pop("attributes"))

        def _parse_stats(data: object) -> None | SubscriptionStats | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                stats_type_0 = SubscriptionStats.from_dict(data)

                return stats_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SubscriptionStats | Unset, data)

        stats = _parse_stats(d.pop("stats", UNSET))

        subscription = cls(
            id=id,
            arn=arn,
            topic=topic,
            topic_arn=topic_arn,
            protocol=protocol,
            endpoint=endpoint,
            pending=pending,
            created_timestamp=created_timestamp,
            attributes=attributes,
            stats=stats,
        )

        subscription.additional_properties = d
        return subscription

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
