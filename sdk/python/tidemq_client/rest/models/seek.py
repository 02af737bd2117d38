from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Seek")


@_attrs_define
class Seek:
    """Where to move a pull subscription's cursor: an `offset`, or the first message
    published at or after `timestamp`. Give one of the two.

        Attributes:
            offset (int | None | Unset):
            timestamp (int | None | Unset):
    """

    offset: int | None | Unset = UNSET
    timestamp: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        offset: int | None | Unset
        if isinstance(self.offset, Unset):
            offset = UNSET
        else:
            offset = self.offset

        timestamp: int | None | Unset
        if isinstance(self.timestamp, Unset):
            timestamp = UNSET
        else:
            timestamp = self.timestamp

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if offset is not UNSET:
            field_dict["offset"] = offset
        if timestamp is not UNSET:
            field_dict["timestamp"] = timestamp

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_offset(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        offset = _parse_offset(d.pop("offset", UNSET))

        def _parse_timestamp(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        timestamp = _parse_timestamp(d.pop("timestamp", UNSET))

        seek = cls(
            offset=offset,
            timestamp=timestamp,
        )

        return seek
