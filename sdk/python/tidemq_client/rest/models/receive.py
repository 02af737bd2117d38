from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Receive")


@_attrs_define
class Receive:
    """
    Attributes:
        max_messages (int | Unset): Default 1. Default: 1.
        wait_seconds (int | None | Unset):
        visibility_timeout (int | None | Unset):
    """

    max_messages: int | Unset = 1
    wait_seconds: int | None | Unset = UNSET
    visibility_timeout: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        max_messages = self.max_messages

        wait_seconds: int | None | Unset
        if isinstance(self.wait_seconds, Unset):
            wait_seconds = UNSET
        else:
            wait_seconds = self.wait_seconds

        visibility_timeout: int | None | Unset
        if isinstance(self.visibility_timeout, Unset):
            visibility_timeout = UNSET
        else:
            visibility_timeout = self.visibility_timeout

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if max_messages is not UNSET:
            field_dict["max_messages"] = max_messages
        if wait_seconds is not UNSET:
            field_dict["wait_seconds"] = wait_seconds
        if visibility_timeout is not UNSET:
            field_dict["visibility_timeout"] = visibility_timeout

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        max_messages = d.pop("max_messages", UNSET)

        def _parse_wait_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        wait_seconds = _parse_wait_seconds(d.pop("wait_seconds", UNSET))

        def _parse_visibility_timeout(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        visibility_timeout = _parse_visibility_timeout(
            d.pop("visibility_timeout", UNSET)
        )

        receive = cls(
            max_messages=max_messages,
            wait_seconds=wait_seconds,
            visibility_timeout=visibility_timeout,
        )

        return receive
