from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.subscribe_op import SubscribeOp, check_subscribe_op
from ..types import UNSET, Unset

T = TypeVar("T", bound="Subscribe")


@_attrs_define
class Subscribe:
    """Start pushing the messages of a queue, or of a pull subscription of a topic, to this
    connection (one subscription of the connection to each).

        Attributes:
            op (SubscribeOp):
            credit (int | Unset): The most messages this subscription may hold delivered and unsettled (not acked, nacked,
                or past their visibility timeout); 0 pauses it. Default: 10.
            visibility_timeout (int | None | Unset):
            id (None | str | Unset):
            queue (None | str | Unset):
            subscription (None | str | Unset):
    """

    op: SubscribeOp
    credit: int | Unset = 10
    visibility_timeout: int | None | Unset = UNSET
    id: None | str | Unset = UNSET
    queue: None | str | Unset = UNSET
    subscription: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        op: str = self.op

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
            }
        )
        if credit is not UNSET:
            field_dict["credit"] = credit
        if visibility_timeout is not UNSET:
            field_dict["visibility_timeout"] = visibility_timeout
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
        op = check_subscribe_op(d.pop("op"))

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

        subscribe = cls(
            op=op,
            credit=credit,
            visibility_timeout=visibility_timeout,
            id=id,
            queue=queue,
            subscription=subscription,
        )

        return subscribe
