from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.topic_attributes import TopicAttributes


T = TypeVar("T", bound="Topic")


@_attrs_define
class Topic:
    """A topic: its attributes as SNS's GetTopicAttributes shows them, with the counts of
    its subscriptions.

        Attributes:
            name (str):
            arn (str):
            fifo (bool):
            created_timestamp (int): ms since the epoch
            partitions (int): How many partitions its log has.
            attributes (TopicAttributes):
    """

    name: str
    arn: str
    fifo: bool
    created_timestamp: int
    partitions: int
    attributes: TopicAttributes
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        arn = self.arn

        fifo = self.fifo

        created_timestamp = self.created_timestamp

        partitions = self.partitions

        attributes = self.attributes.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "arn": arn,
                "fifo": fifo,
                "created_timestamp": created_timestamp,
                "partitions": partitions,
                "attributes": attributes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.topic_attributes import TopicAttributes

        d = dict(src_dict)
        name = d.pop("name")

        arn = d.pop("arn")

        fifo = d.pop("fifo")

        created_timestamp = d.pop("created_timestamp")

        partitions = d.pop("partitions")

        attributes = TopicAttributes.from_dict(d.pop("attributes"))

        topic = cls(
            name=name,
            arn=arn,
            fifo=fifo,
            created_timestamp=created_timestamp,
            partitions=partitions,
            attributes=attributes,
        )

        topic.additional_properties = d
        return topic

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
