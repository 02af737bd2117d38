from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="MessageAttributeValue")


@_attrs_define
class MessageAttributeValue:
    """A message attribute, as in SQS: `String`, `Number` or `Binary`, optionally with a
    `.custom` suffix; a String or Number has `string_value`, a Binary `binary_value`
    (base64).

        Attributes:
            data_type (str):
            string_value (None | str | Unset):
            binary_value (None | str | Unset):
    """

    data_type: str
    string_value: None | str | Unset = UNSET
    binary_value: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        data_type = self.data_type

        string_value: None | str | Unset
        if isinstance(self.string_value, Unset):
            string_value = UNSET
        else:
            string_value = self.string_value

        binary_value: None | str | Unset
        if isinstance(self.binary_value, Unset):
            binary_value = UNSET
        else:
            binary_value = self.binary_value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "data_type": data_type,
            }
        )
        if string_value is not UNSET:
            field_dict["string_value"] = string_value
        if binary_value is not UNSET:
            field_dict["binary_value"] = binary_value

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        data_type = d.pop("data_type")

        def _parse_string_value(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        string_value = _parse_string_value(d.pop("string_value", UNSET))

        def _parse_binary_value(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        binary_value = _parse_binary_value(d.pop("binary_value", UNSET))

        message_attribute_value = cls(
            data_type=data_type,
            string_value=string_value,
            binary_value=binary_value,
        )

        return message_attribute_value
