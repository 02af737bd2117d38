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
    """Send messages to a queue, as the REST API's batch send, or publish them to a topic
    (one of the two): answered once they are durable.

        Attributes:
            op (PublishOp):
            messages (list[SendMessage]): 1 to 100 messages.
            id (None | str | Unset):
            queue (None | str | Unset):
            topic (None | str | Unset):
    """

    op: PublishOp
    messages: list[SendMessage]
    id: None | str | Unset = UNSET
    queue: None | str | Unset = UNSET
    topic: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        op: str = self.op

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

        topic: None | str | Unset
        if isinstance(self.topic, Unset):
            topic = UNSET
        else:
            topic = self.topic

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "op": op,
                "messages": messages,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id
        if queue is not UNSET:
            field_dict["queue"] = queue
        if topic is not UNSET:
            field_dict["topic"] = topic

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.send_message import SendMessage

        d = dict(src_dict)
        op = check_publish_op(d.pop("op"))

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

        def _parse_queue(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        queue = _parse_queue(d.pop("queue", UNSET))

        def _parse_topic(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        topic = _parse_topic(d.pop("topic", UNSET))

        publish = cls(
            op=op,
            messages=messages,
            id=id,
            queue=queue,
            topic=topic,
        )

        return publish
