from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.deliver_type import DeliverType, check_deliver_type
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.received_message import ReceivedMessage


T = TypeVar("T", bound="Deliver")


@_attrs_define
class Deliver:
    """Messages pushed to a subscription; each stays invisible to other receivers for the
    visibility timeout unless acked, nacked or extended with its receipt handle.

        Attributes:
            type_ (DeliverType):
            messages (list[ReceivedMessage]): 1 to 100 messages: as many as were deliverable at once within the credit.
                Their receipt handles can be acked (nacked, extended) together, up to 100 in one frame.
            id (None | str | Unset):
            queue (None | str | Unset):
            subscription (None | str | Unset):
    """

    type_: DeliverType
    messages: list[ReceivedMessage]
    id: None | str | Unset = UNSET
    queue: None | str | Unset = UNSET
    subscription: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_: str = self.type_

        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)

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
                "messages": messages,
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
        from ..models.received_message import ReceivedMessage

        d = dict(src_dict)
        type_ = check_deliver_type(d.pop("type"))

        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:
            messages_item = ReceivedMessage.from_dict(messages_item_data)

            messages.append(messages_item)

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

        deliver = cls(
            type_=type_,
            messages=messages,
            id=id,
            queue=queue,
            subscription=subscription,
        )

        deliver.additional_properties = d
        return deliver

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
