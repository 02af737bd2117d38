from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.partition_archive import PartitionArchive


T = TypeVar("T", bound="QueueArchive")


@_attrs_define
class QueueArchive:
    """Where the archive is, and per partition what it holds.

    Attributes:
        archive (str): s3://bucket/prefix or file:///directory
        partitions (list[PartitionArchive]):
    """

    archive: str
    partitions: list[PartitionArchive]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        archive = self.archive

        partitions = []
        for partitions_item_data in self.partitions:
            partitions_item = partitions_item_data.to_dict()
            partitions.append(partitions_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "archive": archive,
                "partitions": partitions,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.partition_archive import PartitionArchive

        d = dict(src_dict)
        archive = d.pop("archive")

        partitions = []
        _partitions = d.pop("partitions")
        for partitions_item_data in _partitions:
            partitions_item = PartitionArchive.from_dict(partitions_item_data)

            partitions.append(partitions_item)

        queue_archive = cls(
            archive=archive,
            partitions=partitions,
        )

        queue_archive.additional_properties = d
        return queue_archive

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
