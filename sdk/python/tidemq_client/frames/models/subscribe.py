from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.subscribe_op import SubscribeOp, check_subscribe_op
from ..types import UNSET, Unset

T = TypeVar("T", bound="Subscribe")


@_attrs_define
class Subscribe:
    """Start pushing the queue's messages to this connection (one subscription a queue).

    Attributes:
        op (SubscribeOp):
        queue (str): 1 to 80 letters, digits, hyphens or underscores; a FIFO queue's name ends in `.fifo`.
        credit (int | Unset): The most messages this subscription may hold delivered and unsettled (not acked, nacked,
            or past their visibility timeout); 0 pauses it. Default: 10.
        visibility_timeout (int | None | Unset):
        id (None | str | Unset):
    """

    op: SubscribeOp
    queue: str
    credit: int | Unset = 10
    visibility_timeout: int | None | Unset = UNSET
    id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        op: str = self.op

        queue = self.queue

        credit = self.credit

        visibility_timeout: int | None | Unset
        if isinstance(self.visibility_timeout, Unset):
            visibility_timeout = UNSET
        else:
            visibility_timeout = self.visibility_timeout

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "op": op,
                "queue": queue,
            }
        )
        if credit is not UNSET:
            field_dict["credit"] = credit
        if visibility_timeout is not UNSET:
            field_dict["visibility_timeout"] = visibility_timeout
        if id is not UNSET:
            field_dict["id"] = id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        op = check_subscribe_op(d.pop("op"))

        queue = d.pop("queue")

        credit = d.pop("credit", UNSET)

        def _parse_visibility_timeout(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        visibility_timeout = _parse_visibility_timeout(
            d.pop("visibility_timeout", UNSET)
        )

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        subscribe = cls(
            op=op,
            queue=queue,
            credit=credit,
            visibility_timeout=visibility_timeout,
            id=id,
        )

        return subscribe
