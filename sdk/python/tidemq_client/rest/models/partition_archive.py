from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.archived_segment import ArchivedSegment


T = TypeVar("T", bound="PartitionArchive")


@_attrs_define
class PartitionArchive:
    """
    Attributes:
        partition (int):
        archive_start_offset (int):
        archive_end_offset (int): One past the last archived offset.
        log_start_offset (int): The first offset still on local disk.
        log_end_offset (int):
        records_behind (int): Records in the log that the archive does not hold yet.
        tiered_bytes (int):
        local_bytes (int):
        newest_archived_timestamp (int | None):
        segments (list[ArchivedSegment]):
    """

    partition: int
    archive_start_offset: int
    archive_end_offset: int
    log_start_offset: int
    log_end_offset: int
    records_behind: int
    tiered_bytes: int
    local_bytes: int
    newest_archived_timestamp: int | None
    segments: list[ArchivedSegment]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        partition = self.partition

        archive_start_offset = self.archive_start_offset

        archive_end_offset = self.archive_end_offset

        log_start_offset = self.log_start_offset

        log_end_offset = self.log_end_offset

        records_behind = self.records_behind

        tiered_bytes = self.tiered_bytes

        local_bytes = self.local_bytes

        newest_archived_timestamp: int | None
        newest_archived_timestamp = self.newest_archived_timestamp

        segments = []
        for segments_item_data in self.segments:
            segments_item = segments_item_data.to_dict()
            segments.append(segments_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "partition": partition,
                "archive_start_offset": archive_start_offset,
                "archive_end_offset": archive_end_offset,
                "log_start_offset": log_start_offset,
                "log_end_offset": log_end_offset,
                "records_behind": records_behind,
                "tiered_bytes": tiered_bytes,
                "local_bytes": local_bytes,
                "newest_archived_timestamp": newest_archived_timestamp,
                "segments": segments,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.archived_segment import ArchivedSegment

        d = dict(src_dict)
        partition = d.pop("partition")

        archive_start_offset = d.pop("archive_start_offset")

        archive_end_offset = d.pop("archive_end_offset")

        log_start_offset = d.pop("log_start_offset")

        log_end_offset = d.pop("log_end_offset")

        records_behind = d.pop("records_behind")

        tiered_bytes = d.pop("tiered_bytes")

        local_bytes = d.pop("local_bytes")

        def _parse_newest_archived_timestamp(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        newest_archived_timestamp = _parse_newest_archived_timestamp(
            d.pop("newest_archived_timestamp")
        )

        segments = []
        _segments = d.pop("segments")
        for segments_item_data in _segments:
            segments_item = ArchivedSegment.from_dict(segments_item_data)

            segments.append(segments_item)

        partition_archive = cls(
            partition=partition,
            archive_start_offset=archive_start_offset,
            archive_end_offset=archive_end_offset,
            log_start_offset=log_start_offset,
            log_end_offset=log_end_offset,
            records_behind=records_behind,
            tiered_bytes=tiered_bytes,
            local_bytes=local_bytes,
            newest_archived_timestamp=newest_archived_timestamp,
            segments=segments,
        )

        partition_archive.additional_properties = d
        return partition_archive

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
