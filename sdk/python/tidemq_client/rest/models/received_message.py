from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.received_message_attributes import ReceivedMessageAttributes
    from ..models.received_message_system_attributes import (
        ReceivedMessageSystemAttributes,
    )


T = TypeVar("T", bound="ReceivedMessage")


@_attrs_define
class ReceivedMessage:
    """
    Attributes:
        message_id (str):
        receipt_handle (str):
        body (str):
        md5_of_body (str):
        attributes (ReceivedMessageAttributes):
        system_attributes (ReceivedMessageSystemAttributes): AWSTraceHeader, DeadLetterQueueSourceArn.
        receive_count (int):
        sent_timestamp (int): ms since the epoch
        first_receive_timestamp (int): ms since the epoch
        group_id (None | str | Unset):
        dedup_id (None | str | Unset):
        sequence_number (None | str | Unset):
    """

    message_id: str
    receipt_handle: str
    body: str
    md5_of_body: str
    attributes: ReceivedMessageAttributes
    system_attributes: ReceivedMessageSystemAttributes
    receive_count: int
    sent_timestamp: int
    first_receive_timestamp: int
    group_id: None | str | Unset = UNSET
    dedup_id: None | str | Unset = UNSET
    sequence_number: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message_id = self.message_id

        receipt_handle = self.receipt_handle

        body = self.body

        md5_of_body = self.md5_of_body

        attributes = self.attributes.to_dict()

        system_attributes = self.system_attributes.to_dict()

        receive_count = self.receive_count

        sent_timestamp = self.sent_timestamp

        first_receive_timestamp = self.first_receive_timestamp

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

        sequence_number: None | str | Unset
        if isinstance(self.sequence_number, Unset):
            sequence_number = UNSET
        else:
            sequence_number = self.sequence_number

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message_id": message_id,
                "receipt_handle": receipt_handle,
                "body": body,
                "md5_of_body": md5_of_body,
                "attributes": attributes,
                "system_attributes": system_attributes,
                "receive_count": receive_count,
                "sent_timestamp": sent_timestamp,
                "first_receive_timestamp": first_receive_timestamp,
            }
        )
        if group_id is not UNSET:
            field_dict["group_id"] = group_id
        if dedup_id is not UNSET:
            field_dict["dedup_id"] = dedup_id
        if sequence_number is not UNSET:
            field_dict["sequence_number"] = sequence_number

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.received_message_attributes import ReceivedMessageAttributes
        from ..models.received_message_system_attributes import (
            ReceivedMessageSystemAttributes,
        )

        d = dict(src_dict)
        message_id = d.pop("message_id")

        receipt_handle = d.pop("receipt_handle")

        body = d.pop("body")

        md5_of_body = d.pop("md5_of_body")

        attributes = ReceivedMessageAttributes.from_dict(d.pop("attributes"))

        system_attributes = ReceivedMessageSystemAttributes.from_dict(
            d.pop("system_attributes")
        )

        receive_count = d.pop("receive_count")

        sent_timestamp = d.pop("sent_timestamp")

        first_receive_timestamp = d.pop("first_receive_timestamp")

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

        def _parse_sequence_number(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        sequence_number = _parse_sequence_number(d.pop("sequence_number", UNSET))

        received_message = cls(
            message_id=message_id,
            receipt_handle=receipt_handle,
            body=body,
            md5_of_body=md5_of_body,
            attributes=attributes,
            system_attributes=system_attributes,
            receive_count=receive_count,
            sent_timestamp=sent_timestamp,
            first_receive_timestamp=first_receive_timestamp,
            group_id=group_id,
            dedup_id=dedup_id,
            sequence_number=sequence_number,
        )

        received_message.additional_properties = d
        return received_message

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
