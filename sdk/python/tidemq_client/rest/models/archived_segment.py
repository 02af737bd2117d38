from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ArchivedSegment")


@_attrs_define
class ArchivedSegment:
    """
    Attributes:
        base_offset (int):
        end_offset (int): Exclusive.
        records (int):
        first_timestamp (int | None):
        max_timestamp (int | None):
        bytes_ (int):
        writer_epoch (int):
    """

    base_offset: int
    end_offset: int
    records: int
    first_timestamp: int | None
    max_timestamp: int | None
    bytes_: int
    writer_epoch: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        base_offset = self.base_offset

        end_offset = self.end_offset

        records = self.records

        first_timestamp: int | None
        first_timestamp = self.first_timestamp

        max_timestamp: int | None
        max_timestamp = self.max_timestamp

        bytes_ = self.bytes_

        writer_epoch = self.writer_epoch

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "base_offset": base_offset,
                "end_offset": end_offset,
                "records": records,
                "first_timestamp": first_timestamp,
                "max_timestamp": max_timestamp,
                "bytes": bytes_,
                "writer_epoch": writer_epoch,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        base_offset = d.pop("base_offset")

        end_offset = d.pop("end_offset")

        records = d.pop("records")

        def _parse_first_timestamp(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        first_timestamp = _parse_first_timestamp(d.pop("first_timestamp"))

        def _parse_max_timestamp(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        max_timestamp = _parse_max_timestamp(d.pop("max_timestamp"))

        bytes_ = d.pop("bytes")

        writer_epoch = d.pop("writer_epoch")

        archived_segment = cls(
            base_offset=base_offset,
            end_offset=end_offset,
            records=records,
            first_timestamp=first_timestamp,
            max_timestamp=max_timestamp,
            bytes_=bytes_,
            writer_epoch=writer_epoch,
        )

        archived_segment.additional_properties = d
        return archived_segment

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
