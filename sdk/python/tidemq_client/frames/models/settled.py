from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.settled_op import SettledOp, check_settled_op
from ..models.settled_type import SettledType, check_settled_type
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.entry_result import EntryResult


T = TypeVar("T", bound="Settled")


@_attrs_define
class Settled:
    """The answer to `ack`, `nack` and `extend`: one result per receipt handle, in order.

    Attributes:
        type_ (SettledType):
        op (SettledOp):
        results (list[EntryResult]):
        id (None | str | Unset):
        queue (None | str | Unset):
        subscription (None | str | Unset):
    """

    type_: SettledType
    op: SettledOp
    results: list[EntryResult]
    id: None | str | Unset = UNSET
    queue: None | str | Unset = UNSET
    subscription: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_: str = self.type_

        op: str = self.op

        results = []
        for results_item_data in self.results:
            results_item = results_item_data.to_dict()
            results.append(results_item)

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
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "op": op,
                "results": results,
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
        from ..models.entry_result import EntryResult

        d = dict(src_dict)
        type_ = check_settled_type(d.pop("type"))

        op = check_settled_op(d.pop("op"))

        results = []
        _results = d.pop("results")
        for results_item_data in _results:
            results_item = EntryResult.from_dict(results_item_data)

            results.append(results_item)

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

        settled = cls(
            type_=type_,
            op=op,
            results=results,
            id=id,
            queue=queue,
            subscription=subscription,
        )

        settled.additional_properties = d
        return settled

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
