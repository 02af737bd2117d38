from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.set_queue_attributes_attributes import SetQueueAttributesAttributes


T = TypeVar("T", bound="SetQueueAttributes")


@_attrs_define
class SetQueueAttributes:
    """
    Attributes:
        attributes (SetQueueAttributesAttributes): SQS's queue attribute names and string values, with SQS's ranges:
            DelaySeconds, MaximumMessageSize, MessageRetentionPeriod, ReceiveMessageWaitTimeSeconds, VisibilityTimeout,
            RedrivePolicy, RedriveAllowPolicy, Policy, Partitions (TideMQ's: 1 to 64, fixed at creation), Replication
            (TideMQ's: none, replica or object, fixed at creation; the deployment's TIDEMQ_REPLICATION by default) and, for
            FIFO queues, FifoQueue, ContentBasedDeduplication, DeduplicationScope, FifoThroughputLimit.
    """

    attributes: SetQueueAttributesAttributes

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
        from ..models.set_queue_attributes_attributes import (
            SetQueueAttributesAttributes,
        )

        d = dict(src_dict)
        attributes = SetQueueAttributesAttributes.from_dict(d.pop("attributes"))

        set_queue_attributes = cls(
            attributes=attributes,
        )

        return set_queue_attributes
