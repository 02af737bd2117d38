from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.unsubscribe_op import UnsubscribeOp, check_unsubscribe_op
from ..types import UNSET, Unset

T = TypeVar("T", bound="Unsubscribe")


@_attrs_define
class Unsubscribe:
    """Stop the subscription; its unsettled messages become visible again at once.

    Attributes:
        op (UnsubscribeOp):
        queue (str): 1 to 80 letters, digits, hyphens or underscores; a FIFO queue's name ends in `.fifo`.
        id (None | str | Unset):
    """

    op: UnsubscribeOp
    queue: str
    id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        op: str = self.op

        queue = self.queue

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
        if id is not UNSET:
            field_dict["id"] = id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        op = check_unsubscribe_op(d.pop("op"))

        queue = d.pop("queue")

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        unsubscribe = cls(
            op=op,
            queue=queue,
            id=id,
        )

        return unsubscribe
