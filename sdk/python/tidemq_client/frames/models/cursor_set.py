from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.cursor_set_type import CursorSetType, check_cursor_set_type
from ..types import UNSET, Unset

T = TypeVar("T", bound="CursorSet")


@_attrs_define
class CursorSet:
    """The answer to `seek`: the subscription gets the messages from `offset` on.

    Attributes:
        type_ (CursorSetType):
        subscription (str):
        offset (int):
        end_offset (int): The topic log's end: the next publish's offset.
        id (None | str | Unset):
    """

    type_: CursorSetType
    subscription: str
    offset: int
    end_offset: int
    id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_: str = self.type_

        subscription = self.subscription

        offset = self.offset

        end_offset = self.end_offset

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "subscription": subscription,
                "offset": offset,
                "end_offset": end_offset,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        type_ = check_cursor_set_type(d.pop("type"))

        subscription = d.pop("subscription")

        offset = d.pop("offset")

        end_offset = d.pop("end_offset")

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        cursor_set = cls(
            type_=type_,
            subscription=subscription,
            offset=offset,
            end_offset=end_offset,
            id=id,
        )

        cursor_set.additional_properties = d
        return cursor_set

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
