from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.visibility_change import VisibilityChange


T = TypeVar("T", bound="ChangeVisibility")


@_attrs_define
class ChangeVisibility:
    """
    Attributes:
        entries (list[VisibilityChange]): 1 to 100 entries.
    """

    entries: list[VisibilityChange]

    def to_dict(self) -> dict[str, Any]:
        entries = []
        for entries_item_data in self.entries:
            entries_item = entries_item_data.to_dict()
            entries.append(entries_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "entries": entries,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.visibility_change import VisibilityChange

        d = dict(src_dict)
        entries = []
        _entries = d.pop("entries")
        for entries_item_data in _entries:
            entries_item = VisibilityChange.from_dict(entries_item_data)

            entries.append(entries_item)

        change_visibility = cls(
            entries=entries,
        )

        return change_visibility
