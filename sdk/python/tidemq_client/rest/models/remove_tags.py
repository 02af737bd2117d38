from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="RemoveTags")


@_attrs_define
class RemoveTags:
    """
    Attributes:
        keys (list[str]):
    """

    keys: list[str]

    def to_dict(self) -> dict[str, Any]:
        keys = self.keys

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "keys": keys,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        keys = cast(list[str], d.pop("keys"))

        remove_tags = cls(
            keys=keys,
        )

        return remove_tags
