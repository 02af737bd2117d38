from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="DeleteMessages")


@_attrs_define
class DeleteMessages:
    """
    Attributes:
        receipt_handles (list[str]): 1 to 100 entries.
    """

    receipt_handles: list[str]

    def to_dict(self) -> dict[str, Any]:
        receipt_handles = self.receipt_handles

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "receipt_handles": receipt_handles,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        receipt_handles = cast(list[str], d.pop("receipt_handles"))

        delete_messages = cls(
            receipt_handles=receipt_handles,
        )

        return delete_messages
