from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.error_detail import ErrorDetail


T = TypeVar("T", bound="SendResult")


@_attrs_define
class SendResult:
    """One entry of a batch send: the sent message's fields, or `error`.

    Attributes:
        index (int):
        message_id (None | str | Unset):
        md5_of_body (None | str | Unset):
        md5_of_attributes (None | str | Unset):
        sequence_number (None | str | Unset):
        error (ErrorDetail | None | Unset):
    """

    index: int
    message_id: None | str | Unset = UNSET
    md5_of_body: None | str | Unset = UNSET
    md5_of_attributes: None | str | Unset = UNSET
    sequence_number: None | str | Unset = UNSET
    error: ErrorDetail | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.error_detail import ErrorDetail

        index = self.index

        message_id: None | str | Unset
        if isinstance(self.message_id, Unset):
            message_id = UNSET
        else:
            message_id = self.message_id

        md5_of_body: None | str | Unset
        if isinstance(self.md5_of_body, Unset):
            md5_of_body = UNSET
        else:
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

        error: dict[str, Any] | None | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, ErrorDetail):
            error = self.error.to_dict()
        else:
            error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "index": index,
            }
        )
        if message_id is not UNSET:
            field_dict["message_id"] = message_id
        if md5_of_body is not UNSET:
            field_dict["md5_of_body"] = md5_of_body
        if md5_of_attributes is not UNSET:
            field_dict["md5_of_attributes"] = md5_of_attributes
        if sequence_number is not UNSET:
            field_dict["sequence_number"] = sequence_number
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.error_detail import ErrorDetail

        d = dict(src_dict)
        index = d.pop("index")

        def _parse_message_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        message_id = _parse_message_id(d.pop("message_id", UNSET))

        def _parse_md5_of_body(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        md5_of_body = _parse_md5_of_body(d.pop("md5_of_body", UNSET))

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

        def _parse_error(data: object) -> ErrorDetail | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = ErrorDetail.from_dict(data)

                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ErrorDetail | None | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        send_result = cls(
            index=index,
            message_id=message_id,
            md5_of_body=md5_of_body,
            md5_of_attributes=md5_of_attributes,
            sequence_number=sequence_number,
            error=error,
        )

        send_result.additional_properties = d
        return send_result

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
