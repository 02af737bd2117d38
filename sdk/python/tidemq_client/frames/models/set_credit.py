from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.set_credit_op import SetCreditOp, check_set_credit_op
from ..types import UNSET, Unset

T = TypeVar("T", bound="SetCredit")


@_attrs_define
class SetCredit:
    """Change a subscription's credit (raising it lets more messages through at once).

    Attributes:
        op (SetCreditOp):
        queue (str): 1 to 80 letters, digits, hyphens or underscores; a FIFO queue's name ends in `.fifo`.
        credit (int): The most messages this subscription may hold delivered and unsettled (not acked, nacked, or past
            their visibility timeout); 0 pauses it.
        id (None | str | Unset):
    """

    op: SetCreditOp
    queue: str
    credit: int
    id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        op: str = self.op

        queue = self.queue

        credit = self.credit

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
                "credit": credit,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        op = check_set_credit_op(d.pop("op"))

        queue = d.pop("queue")

        credit = d.pop("credit")

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        set_credit = cls(
            op=op,
            queue=queue,
            credit=credit,
            id=id,
        )

        return set_credit
