from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.move_task_status import MoveTaskStatus, check_move_task_status
from ..types import UNSET, Unset

T = TypeVar("T", bound="MoveTask")


@_attrs_define
class MoveTask:
    """
    Attributes:
        status (MoveTaskStatus):
        source (str):
        moved (int):
        to_move (int):
        started_timestamp (int): ms since the epoch
        task_handle (None | str | Unset):
        destination (None | str | Unset):
        max_per_second (int | None | Unset):
        failure_reason (None | str | Unset):
    """

    status: MoveTaskStatus
    source: str
    moved: int
    to_move: int
    started_timestamp: int
    task_handle: None | str | Unset = UNSET
    destination: None | str | Unset = UNSET
    max_per_second: int | None | Unset = UNSET
    failure_reason: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        status: str = self.status

        source = self.source

        moved = self.moved

        to_move = self.to_move

        started_timestamp = self.started_timestamp

        task_handle: None | str | Unset
        if isinstance(self.task_handle, Unset):
            task_handle = UNSET
        else:
            task_handle = self.task_handle

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

        failure_reason: None | str | Unset
        if isinstance(self.failure_reason, Unset):
            failure_reason = UNSET
        else:
            failure_reason = self.failure_reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "source": source,
                "moved": moved,
                "to_move": to_move,
                "started_timestamp": started_timestamp,
            }
        )
        if task_handle is not UNSET:
            field_dict["task_handle"] = task_handle
        if destination is not UNSET:
            field_dict["destination"] = destination
        if max_per_second is not UNSET:
            field_dict["max_per_second"] = max_per_second
        if failure_reason is not UNSET:
            field_dict["failure_reason"] = failure_reason

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        status = check_move_task_status(d.pop("status"))

        source = d.pop("source")

        moved = d.pop("moved")

        to_move = d.pop("to_move")

        started_timestamp = d.pop("started_timestamp")

        def _parse_task_handle(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        task_handle = _parse_task_handle(d.pop("task_handle", UNSET))

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

        def _parse_failure_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        failure_reason = _parse_failure_reason(d.pop("failure_reason", UNSET))

        move_task = cls(
            status=status,
            source=source,
            moved=moved,
            to_move=to_move,
            started_timestamp=started_timestamp,
            task_handle=task_handle,
            destination=destination,
            max_per_second=max_per_second,
            failure_reason=failure_reason,
        )

        move_task.additional_properties = d
        return move_task

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
