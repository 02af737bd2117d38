from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.queue_attributes import QueueAttributes
    from ..models.queue_stats import QueueStats


T = TypeVar("T", bound="Queue")


@_attrs_define
class Queue:
    """A queue: its attributes (defaults included) and its approximate counts.

    Attributes:
        name (str):
        url (str): The queue's URL on the SQS API.
        arn (str):
        fifo (bool):
        created_timestamp (int): ms since the epoch
        last_modified_timestamp (int): ms since the epoch
        partitions (int): How many partitions its log has.
        attributes (QueueAttributes):
        stats (QueueStats): Approximate counts, as SQS's ApproximateNumberOfMessages* are.
    """

    name: str
    url: str
    arn: str
    fifo: bool
    created_timestamp: int
    last_modified_timestamp: int
    partitions: int
    attributes: QueueAttributes
    stats: QueueStats
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        url = self.url

        arn = self.arn

        fifo = self.fifo

        created_timestamp = self.created_timestamp

        last_modified_timestamp = self.last_modified_timestamp

        partitions = self.partitions

        attributes = self.attributes.to_dict()

        stats = self.stats.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "url": url,
                "arn": arn,
                "fifo": fifo,
                "created_timestamp": created_timestamp,
                "last_modified_timestamp": last_modified_timestamp,
                "partitions": partitions,
                "attributes": attributes,
                "stats": stats,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.queue_attributes import QueueAttributes
        from ..models.queue_stats import QueueStats

        d = dict(src_dict)
        name = d.pop("name")

        url = d.pop("url")

        arn = d.pop("arn")

        fifo = d.pop("fifo")

        created_timestamp = d.pop("created_timestamp")

        last_modified_timestamp = d.pop("last_modified_timestamp")

        partitions = d.pop("partitions")

        attributes = QueueAttributes.from_dict(d.pop("attributes"))

        stats = QueueStats.from_dict(d.pop("stats"))

        queue = cls(
            name=name,
            url=url,
            arn=arn,
            fifo=fifo,
            created_timestamp=created_timestamp,
            last_modified_timestamp=last_modified_timestamp,
            partitions=partitions,
            attributes=attributes,
            stats=stats,
        )

        queue.additional_properties = d
        return queue

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
