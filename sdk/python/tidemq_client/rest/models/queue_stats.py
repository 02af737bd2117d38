from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="QueueStats")


@_attrs_define
class QueueStats:
    """Approximate counts, as SQS's ApproximateNumberOfMessages* are.

    Attributes:
        visible (int): Messages available to receive.
        in_flight (int): Received and neither deleted nor visible again.
        delayed (int): Sent with a delay that has not ended.
    """

    visible: int
    in_flight: int
    delayed: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        visible = self.visible

        in_flight = self.in_flight

        delayed = self.delayed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "visible": visible,
                "in_flight": in_flight,
                "delayed": delayed,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        visible = d.pop("visible")

        in_flight = d.pop("in_flight")

        delayed = d.pop("delayed")

        queue_stats = cls(
            visible=visible,
            in_flight=in_flight,
            delayed=delayed,
        )

        queue_stats.additional_properties = d
        return queue_stats

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
