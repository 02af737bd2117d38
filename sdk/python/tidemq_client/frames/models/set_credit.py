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
        credit (int): The most messages this subscription may hold delivered and unsettled (not acked, nacked, or past
            their visibility timeout); 0 pauses it.
        id (None | str | Unset):
        queue (None | str | Unset):
        subscription (None | str | Unset):
    """

    op: SetCreditOp
    credit: int
    id: None | str | Unset = UNSET
    queue: None | str | Unset = UNSET
    subscription: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        op: str = self.op

        credit = self.credit

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        queue: None | str | Unset
        if isinstance(self.queue, Unset):
            queue = UNSET
        else:
            queue = self.queue

        subscription: None | str | Unset
        if isinstance(self.subscription, Unset):
            subscription = UNSET
        else:
            subscription = self.subscription

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "op": op,
                "credit": credit,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id
        if queue is not UNSET:
            field_dict["queue"] = queue
        if subscription is not UNSET:
            field_dict["subscription"] = subscription

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        op = check_set_credit_op(d.pop("op"))

        credit = d.pop("credit")

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        def _parse_queue(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        queue = _parse_queue(d.pop("queue", UNSET))

        def _parse_subscription(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        subscription = _parse_subscription(d.pop("subscription", UNSET))

        set_credit = cls(
            op=op,
            credit=credit,
            id=id,
            queue=queue,
            subscription=subscription,
        )

        return set_credit
