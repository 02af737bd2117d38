from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.queue_ref import QueueRef


T = TypeVar("T", bound="DeadLetterSources")


@_attrs_define
class DeadLetterSources:
    """The queues whose RedrivePolicy names this queue as their dead-letter queue.

    Attributes:
        queues (list[QueueRef]):
    """

    queues: list[QueueRef]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        queues = []
        for queues_item_data in self.queues:
            queues_item = queues_item_data.to_dict()
            queues.append(queues_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "queues": queues,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.queue_ref import QueueRef

        d = dict(src_dict)
        queues = []
        _queues = d.pop("queues")
        for queues_item_data in _queues:
            queues_item = QueueRef.from_dict(queues_item_data)

            queues.append(queues_item)

        dead_letter_sources = cls(
            queues=queues,
        )

        dead_letter_sources.additional_properties = d
        return dead_letter_sources

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
