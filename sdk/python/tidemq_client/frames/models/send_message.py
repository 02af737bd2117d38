from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.send_message_attributes_type_0 import SendMessageAttributesType0
    from ..models.send_message_system_attributes_type_0 import (
        SendMessageSystemAttributesType0,
    )


T = TypeVar("T", bound="SendMessage")


@_attrs_define
class SendMessage:
    """A message to send to a queue or publish to a topic. FIFO queues and topics need
    `group_id`, and `dedup_id` unless they have ContentBasedDeduplication; FIFO queues
    take no per-message delay. Topics take `subject`, and neither delays nor system
    attributes; queues take no `subject`.

        Attributes:
            body (str): Text: the characters SQS allows (XML 1.0's: no NUL or other control characters but tab, line feed
                and carriage return). Binary data goes base64-encoded in the body, or in a Binary attribute.
            attributes (None | SendMessageAttributesType0 | Unset):
            system_attributes (None | SendMessageSystemAttributesType0 | Unset):
            delay_seconds (int | None | Unset):
            delay_level (int | None | Unset):
            group_id (None | str | Unset):
            dedup_id (None | str | Unset):
            subject (None | str | Unset):
    """

    body: str
    attributes: None | SendMessageAttributesType0 | Unset = UNSET
    system_attributes: None | SendMessageSystemAttributesType0 | Unset = UNSET
    delay_seconds: int | None | Unset = UNSET
    delay_level: int | None | Unset = UNSET
    group_id: None | str | Unset = UNSET
    dedup_id: None | str | Unset = UNSET
    subject: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.send_message_attributes_type_0 import SendMessageAttributesType0
        from ..models.send_message_system_attributes_type_0 import (
            SendMessageSystemAttributesType0,
        )

        body = self.body

        attributes: dict[str, Any] | None | Unset
        if isinstance(self.attributes, Unset):
            attributes = UNSET
        elif isinstance(self.attributes, SendMessageAttributesType0):
            attributes = self.attributes.to_dict()
        else:
            attributes = self.attributes

        system_attributes: dict[str, Any] | None | Unset
        if isinstance(self.system_attributes, Unset):
            system_attributes = UNSET
        elif isinstance(self.system_attributes, SendMessageSystemAttributesType0):
            system_attributes = self.system_attributes.to_dict()
        else:
            system_attributes = self.system_attributes

        delay_seconds: int | None | Unset
        if isinstance(self.delay_seconds, Unset):
            delay_seconds = UNSET
        else:
            delay_seconds = self.delay_seconds

        delay_level: int | None | Unset
        if isinstance(self.delay_level, Unset):
            delay_level = UNSET
        else:
            delay_level = self.delay_level

        group_id: None | str | Unset
        if isinstance(self.group_id, Unset):
            group_id = UNSET
        else:
            group_id = self.group_id

        dedup_id: None | str | Unset
        if isinstance(self.dedup_id, Unset):
            dedup_id = UNSET
        else:
            dedup_id = self.dedup_id

        subject: None | str | Unset
        if isinstance(self.subject, Unset):
            subject = UNSET
        else:
            subject = self.subject

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "body": body,
            }
        )
        if attributes is not UNSET:
            field_dict["attributes"] = attributes
        if system_attributes is not UNSET:
            field_dict["system_attributes"] = system_attributes
        if delay_seconds is not UNSET:
            field_dict["delay_seconds"] = delay_seconds
        if delay_level is not UNSET:
            field_dict["delay_level"] = delay_level
        if group_id is not UNSET:
            field_dict["group_id"] = group_id
        if dedup_id is not UNSET:
            field_dict["dedup_id"] = dedup_id
        if subject is not UNSET:
            field_dict["subject"] = subject

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.send_message_attributes_type_0 import SendMessageAttributesType0
        from ..models.send_message_system_attributes_type_0 import (
            SendMessageSystemAttributesType0,
        )

        d = dict(src_dict)
        body = d.pop("body")

        def _parse_attributes(
            data: object,
        ) -> None | SendMessageAttributesType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                attributes_type_0 = SendMessageAttributesType0.from_dict(data)

                return attributes_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SendMessageAttributesType0 | Unset, data)

        attributes = _parse_attributes(d.pop("attributes", UNSET))

        def _parse_system_attributes(
            data: object,
        ) -> None | SendMessageSystemAttributesType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                system_attributes_type_0 = SendMessageSystemAttributesType0.from_dict(
                    data
                )

                return system_attributes_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SendMessageSystemAttributesType0 | Unset, data)

        system_attributes = _parse_system_attributes(d.pop("system_attributes", UNSET))

        def _parse_delay_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        delay_seconds = _parse_delay_seconds(d.pop("delay_seconds", UNSET))

        def _parse_delay_level(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        delay_level = _parse_delay_level(d.pop("delay_level", UNSET))

        def _parse_group_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        group_id = _parse_group_id(d.pop("group_id", UNSET))

        def _parse_dedup_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        dedup_id = _parse_dedup_id(d.pop("dedup_id", UNSET))

        def _parse_subject(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        subject = _parse_subject(d.pop("subject", UNSET))

        send_message = cls(
            body=body,
            attributes=attributes,
            system_attributes=system_attributes,
            delay_seconds=delay_seconds,
            delay_level=delay_level,
            group_id=group_id,
            dedup_id=dedup_id,
            subject=subject,
        )

        return send_message
