from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.set_topic_attributes_attributes import SetTopicAttributesAttributes


T = TypeVar("T", bound="SetTopicAttributes")


@_attrs_define
class SetTopicAttributes:
    """
    Attributes:
        attributes (SetTopicAttributesAttributes): SNS's topic attribute names and string values: DisplayName, Policy,
            DeliveryPolicy, SignatureVersion, TracingConfig, KmsMasterKeyId, Partitions and Replication (TideMQ's, fixed at
            creation: 1 to 64; none, replica or object) and, for FIFO topics, FifoTopic, ContentBasedDeduplication,
            FifoThroughputScope, ArchivePolicy.
    """

    attributes: SetTopicAttributesAttributes

    def to_dict(self) -> dict[str, Any]:
        attributes = self.attributes.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "attributes": attributes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.set_topic_attributes_attributes import (
            SetTopicAttributesAttributes,
        )

        d = dict(src_dict)
        attributes = SetTopicAttributesAttributes.from_dict(d.pop("attributes"))

        set_topic_attributes = cls(
            attributes=attributes,
        )

        return set_topic_attributes
