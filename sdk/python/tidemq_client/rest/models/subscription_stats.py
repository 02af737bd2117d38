from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SubscriptionStats")


@_attrs_define
class SubscriptionStats:
    """Approximate counts of a pull subscription.

    Attributes:
        visible (int): Messages it may receive now.
        in_flight (int): Received and neither deleted nor visible again.
    """

    visible: int
    in_flight: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        visible = self.visible

        in_flight = self.in_flight

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "visible": visible,
                "in_flight": in_flight,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        visible = d.pop("visible")

        in_flight = d.pop("in_flight")

        subscription_stats = cls(
            visible=visible,
            in_flight=in_flight,
        )

        subscription_stats.additional_properties = d
        return subscription_stats

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
