from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="SentMessage")


@_attrs_define
class SentMessage:
    """
    Attributes:
        message_id (str):
        md5_of_body (str):
        md5_of_attributes (None | str | Unset):
        sequence_number (None | str | Unset):
    """

    message_id: str
    md5_of_body: str
    md5_of_attributes: None | str | Unset = UNSET
    sequence_number: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message_id = self.message_id

        md5_of_body = self.md5_of_body

        md5_of_attributes: None | str | Unset
        if isinstance(self.md5_of_attributes, Unset):
            md5_of_attributes = UNSET
        else:
            md5_of_attributes = self.md5_of_attributes

        sequence_number: None | str | Unset
        if isinstance(self.sequence_number, Unset):
            sequence_number = UNSET
        else:
            sequence_number = self.sequence_number

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message_id": message_id,
                "md5_of_body": md5_of_body,
            }
        )
        if md5_of_attributes is not UNSET:
            field_dict["md5_of_attributes"] = md5_of_attributes
        if sequence_number is not UNSET:
            field_dict["sequence_number"] = sequence_number

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        message_id = d.pop("message_id")

        md5_of_body = d.pop("md5_of_body")

        def _parse_md5_of_attributes(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        md5_of_attributes = _parse_md5_of_attributes(d.pop("md5_of_attributes", UNSET))

        def _parse_sequence_number(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        sequence_number = _parse_sequence_number(d.pop("sequence_number", UNSET))

        sent_message = cls(
            message_id=message_id,
            md5_of_body=md5_of_body,
            md5_of_attributes=md5_of_attributes,
            sequence_number=sequence_number,
        )

        sent_message.additional_properties = d
        return sent_message

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
