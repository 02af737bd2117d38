from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.add_tags_tags import AddTagsTags


T = TypeVar("T", bound="AddTags")


@_attrs_define
class AddTags:
    """
    Attributes:
        tags (AddTagsTags): At most 50; keys 1-128 characters not starting `aws:`, values up to 256.
    """

    tags: AddTagsTags

    def to_dict(self) -> dict[str, Any]:
        tags = self.tags.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "tags": tags,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.add_tags_tags import AddTagsTags

        d = dict(src_dict)
        tags = AddTagsTags.from_dict(d.pop("tags"))

        add_tags = cls(
            tags=tags,
        )

        return add_tags
