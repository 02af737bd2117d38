from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.error_frame_type import ErrorFrameType, check_error_frame_type
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.error_detail import ErrorDetail


T = TypeVar("T", bound="ErrorFrame")


@_attrs_define
class ErrorFrame:
    """A frame that could not be carried out, with the REST API's error code; nothing it
    asked for was done. Connection-wide errors (a revoked token) come just before the
    server closes the connection with code 1008.

        Attributes:
            type_ (ErrorFrameType):
            error (ErrorDetail):
            op (None | str | Unset):
            id (None | str | Unset):
    """

    type_: ErrorFrameType
    error: ErrorDetail
    op: None | str | Unset = UNSET
    id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_: str = self.type_

        error = self.error.to_dict()

        op: None | str | Unset
        if isinstance(self.op, Unset):
            op = UNSET
        else:
            op = self.op

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
                "error": error,
            }
        )
        if op is not UNSET:
            field_dict["op"] = op
        if id is not UNSET:
            field_dict["id"] = id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.error_detail import ErrorDetail

        d = dict(src_dict)
        type_ = check_error_frame_type(d.pop("type"))

        error = ErrorDetail.from_dict(d.pop("error"))

        def _parse_op(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        op = _parse_op(d.pop("op", UNSET))

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        error_frame = cls(
            type_=type_,
            error=error,
            op=op,
            id=id,
        )

        error_frame.additional_properties = d
        return error_frame

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
