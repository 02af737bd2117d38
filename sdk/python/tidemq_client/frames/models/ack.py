from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.ack_op import AckOp, check_ack_op
from ..types import UNSET, Unset

T = TypeVar("T", bound="Ack")


@_attrs_define
class Ack:
    """Delete messages: they were processed.

    Attributes:
        op (AckOp):
        queue (str): 1 to 80 letters, digits, hyphens or underscores; a FIFO queue's name ends in `.fifo`.
        receipt_handles (list[str]): 1 to 100 receipt handles of messages of the queue.
        id (None | str | Unset):
    """

    op: AckOp
    queue: str
    receipt_handles: list[str]
    id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        op: str = self.op

        queue = self.queue

        receipt_handles = self.receipt_handles

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
                "receipt_handles": receipt_handles,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        op = check_ack_op(d.pop("op"))

        queue = d.pop("queue")

        receipt_handles = cast(list[str], d.pop("receipt_handles"))

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        ack = cls(
            op=op,
            queue=queue,
            receipt_handles=receipt_handles,
            id=id,
        )

        return ack
