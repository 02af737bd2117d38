from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.seek_op import SeekOp, check_seek_op
from ..types import UNSET, Unset

T = TypeVar("T", bound="Seek")


@_attrs_define
class Seek:
    """Move a pull subscription's cursor to an `offset` of its topic's log, or to the
    first message published at or after `timestamp` (one of the two): everything from
    there is delivered again, and what was in flight is forgotten.

        Attributes:
            op (SeekOp):
            subscription (str): A subscription's id: the last part of its ARN.
            offset (int | None | Unset):
            timestamp (int | None | Unset):
            id (None | str | Unset):
    """

    op: SeekOp
    subscription: str
    offset: int | None | Unset = UNSET
    timestamp: int | None | Unset = UNSET
    id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        op: str = self.op

        subscription = self.subscription

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

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "op": op,
                "subscription": subscription,
            }
        )
        if offset is not UNSET:
            field_dict["offset"] = offset
        if timestamp is not UNSET:
            field_dict["timestamp"] = timestamp
        if id is not UNSET:
            field_dict["id"] = id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        op = check_seek_op(d.pop("op"))

        subscription = d.pop("subscription")

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

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        seek = cls(
            op=op,
            subscription=subscription,
            offset=offset,
            timestamp=timestamp,
            id=id,
        )

        return seek
