from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="StartMoveTask")


@_attrs_define
class StartMoveTask:
    """Moves the dead-letter queue's messages to `destination`, or each back to the queue
    it came from.

        Attributes:
            destination (None | str | Unset):
            max_per_second (int | None | Unset):
    """

    destination: None | str | Unset = UNSET
    max_per_second: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        destination: None | str | Unset
        if isinstance(self.destination, Unset):
            destination = UNSET
        else:
            destination = self.destination

        max_per_second: int | None | Unset
        if isinstance(self.max_per_second, Unset):
            max_per_second = UNSET
        else:
            max_per_second = self.max_per_second

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if destination is not UNSET:
            field_dict["destination"] = destination
        if max_per_second is not UNSET:
            field_dict["max_per_second"] = max_per_second

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_destination(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        destination = _parse_destination(d.pop("destination", UNSET))

        def _parse_max_per_second(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_per_second = _parse_max_per_second(d.pop("max_per_second", UNSET))

        start_move_task = cls(
            destination=destination,
            max_per_second=max_per_second,
        )

        return start_move_task
