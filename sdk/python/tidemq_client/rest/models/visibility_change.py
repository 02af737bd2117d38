from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="VisibilityChange")


@_attrs_define
class VisibilityChange:
    """
    Attributes:
        receipt_handle (str):
        visibility_timeout (int): Seconds from now.
    """

    receipt_handle: str
    visibility_timeout: int

    def to_dict(self) -> dict[str, Any]:
        receipt_handle = self.receipt_handle

        visibility_timeout = self.visibility_timeout

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "receipt_handle": receipt_handle,
                "visibility_timeout": visibility_timeout,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        receipt_handle = d.pop("receipt_handle")

        visibility_timeout = d.pop("visibility_timeout")

        visibility_change = cls(
            receipt_handle=receipt_handle,
            visibility_timeout=visibility_timeout,
        )

        return visibility_change
