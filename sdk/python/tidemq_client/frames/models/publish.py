from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.publish_op import PublishOp, check_publish_op
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.send_message import SendMessage


T = TypeVar("T", bound="Publish")


@_attrs_define
class Publish:
    """Send messages, as the REST API's batch send: answered once they are durable.

    Attributes:
        op (PublishOp):
        queue (str): 1 to 80 letters, digits, hyphens or underscores; a FIFO queue's name ends in `.fifo`.
        messages (list[SendMessage]): 1 to 100 messages.
        id (None | str | Unset):
    """

    op: PublishOp
    queue: str
    messages: list[SendMessage]
    id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        op: str = self.op

        queue = self.queue

        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)

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
                "messages": messages,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.send_message import SendMessage

        d = dict(src_dict)
        op = check_publish_op(d.pop("op"))

        queue = d.pop("queue")

        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:
            messages_item = SendMessage.from_dict(messages_item_data)

            messages.append(messages_item)

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        publish = cls(
            op=op,
            queue=queue,
            messages=messages,
            id=id,
        )

        return publish
