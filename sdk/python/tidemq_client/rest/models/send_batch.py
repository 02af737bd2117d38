from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.send_message import SendMessage


T = TypeVar("T", bound="SendBatch")


@_attrs_define
class SendBatch:
    """
    Attributes:
        messages (list[SendMessage]): 1 to 100 entries.
    """

    messages: list[SendMessage]

    def to_dict(self) -> dict[str, Any]:
        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "messages": messages,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.send_message import SendMessage

        d = dict(src_dict)
        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:
            messages_item = SendMessage.from_dict(messages_item_data)

            messages.append(messages_item)

        send_batch = cls(
            messages=messages,
        )

        return send_batch
