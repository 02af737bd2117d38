from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.create_topic_attributes_type_0 import CreateTopicAttributesType0
    from ..models.create_topic_tags_type_0 import CreateTopicTagsType0


T = TypeVar("T", bound="CreateTopic")


@_attrs_define
class CreateTopic:
    """
    Attributes:
        name (str): 1 to 256 letters, digits, hyphens or underscores; a FIFO topic's name ends in `.fifo`.
        attributes (CreateTopicAttributesType0 | None | Unset):
        tags (CreateTopicTagsType0 | None | Unset):
        partitions (int | None | Unset):
    """

    name: str
    attributes: CreateTopicAttributesType0 | None | Unset = UNSET
    tags: CreateTopicTagsType0 | None | Unset = UNSET
    partitions: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.create_topic_attributes_type_0 import CreateTopicAttributesType0
        from ..models.create_topic_tags_type_0 import CreateTopicTagsType0

        name = self.name

        attributes: dict[str, Any] | None | Unset
        if isinstance(self.attributes, Unset):
            attributes = UNSET
        elif isinstance(self.attributes, CreateTopicAttributesType0):
            attributes = self.attributes.to_dict()
        else:
            attributes = self.attributes

        tags: dict[str, Any] | None | Unset
        if isinstance(self.tags, Unset):
            tags = UNSET
        elif isinstance(self.tags, CreateTopicTagsType0):
            tags = self.tags.to_dict()
        else:
            tags = self.tags

        partitions: int | None | Unset
        if isinstance(self.partitions, Unset):
            partitions = UNSET
        else:
            partitions = self.partitions

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
            }
        )
        if attributes is not UNSET:
            field_dict["attributes"] = attributes
        if tags is not UNSET:
            field_dict["tags"] = tags
        if partitions is not UNSET:
            field_dict["partitions"] = partitions

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.create_topic_attributes_type_0 import CreateTopicAttributesType0
        from ..models.create_topic_tags_type_0 import CreateTopicTagsType0

        d = dict(src_dict)
        name = d.pop("name")

        def _parse_attributes(
            data: object,
        ) -> CreateTopicAttributesType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                attributes_type_0 = CreateTopicAttributesType0.from_dict(data)

                return attributes_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CreateTopicAttributesType0 | None | Unset, data)

        attributes = _parse_attributes(d.pop("attributes", UNSET))

        def _parse_tags(data: object) -> CreateTopicTagsType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tags_type_0 = CreateTopicTagsType0.from_dict(data)

                return tags_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CreateTopicTagsType0 | None | Unset, data)

        tags = _parse_tags(d.pop("tags", UNSET))

        def _parse_partitions(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        partitions = _parse_partitions(d.pop("partitions", UNSET))

        create_topic = cls(
            name=name,
            attributes=attributes,
            tags=tags,
            partitions=partitions,
        )

        return create_topic
