"""Messages between the REST API's fields and the broker's values.

A message to send is checked by the SQS API's own code (gateway/sqs/actions/messages.py
`new_message`, gateway/sqs/message_attributes.py), given the REST fields under their SQS
parameter names, so both APIs take exactly the same messages; the SQS parameter names in
its error messages are put back into REST field names. Digests are SQS's, so a message
sent on one API and received on the other has the MD5s an SDK checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from control_plane.delay_levels import delay_ms_for_level
from control_plane.errors import ControlPlaneError
from control_plane.queues import QueueInfo
from gateway.broker import NewMessage
from gateway.broker import SentMessage as Sent
from gateway.receiver import ReceivedMessage as Received
from gateway.rest.errors import RestError, from_foreign
from gateway.rest.shapes.common import MessageAttributeValue
from gateway.rest.shapes.messages import ReceivedMessage, SendMessage, SendResult, SentMessage
from gateway.sqs import message_attributes
from gateway.sqs.actions.messages import new_message, sent_fields
from gateway.sqs.errors import SqsError
from gateway.sqs.md5 import md5_hex

# SQS parameter names in the shared checks' messages -> the REST API's field names.
_FIELD_NAMES = {
    "MessageBody": "body",
    "MessageGroupId": "group_id",
    "MessageDeduplicationId": "dedup_id",
    "DelaySeconds": "delay_seconds",
    "MessageAttributes": "attributes",
    "MessageSystemAttributes": "system_attributes",
}


def checked_message(queue: QueueInfo, request: SendMessage) -> NewMessage:
    """The message to send, checked by the SQS API's rules, with its delay level."""
    params: dict[str, Any] = {
        "MessageBody": request.body,
        "DelaySeconds": request.delay_seconds,
        "MessageGroupId": request.group_id,
        "MessageDeduplicationId": request.dedup_id,
        "MessageAttributes": _sqs_attributes(request.attributes),
        "MessageSystemAttributes": _sqs_attributes(request.system_attributes),
    }
    try:
        message = new_message(queue, params)
    except (SqsError, ControlPlaneError) as exc:
        error = from_foreign(exc)
        for sqs_name, rest_name in _FIELD_NAMES.items():
            error.message = error.message.replace(sqs_name, rest_name)
        raise error from exc
    if request.delay_level is None:
        return message
    if request.delay_seconds is not None:
        raise RestError("InvalidParameterValue", "Give delay_seconds or delay_level, not both.")
    if queue.fifo:
        raise RestError(
            "InvalidParameterValue",
            "FIFO queues take no per-message delay: delay_level is not valid for them.",
        )
    return replace(message, delay_ms=delay_ms_for_level(request.delay_level))


def _sqs_attributes(
    attributes: Mapping[str, MessageAttributeValue] | None,
) -> dict[str, dict[str, str]]:
    sqs: dict[str, dict[str, str]] = {}
    for name, value in (attributes or {}).items():
        sqs[name] = {"DataType": value.data_type}
        if value.string_value is not None:
            sqs[name]["StringValue"] = value.string_value
        if value.binary_value is not None:
            sqs[name]["BinaryValue"] = value.binary_value
    return sqs


def sent_message(queue: QueueInfo, message: NewMessage, sent: Sent) -> SentMessage:
    """What a sender learns of a message sent: SQS's fields, under REST names."""
    fields = sent_fields(queue, message, sent)
    return SentMessage(
        message_id=fields["MessageId"],
        md5_of_body=fields["MD5OfMessageBody"],
        md5_of_attributes=fields.get("MD5OfMessageAttributes"),
        sequence_number=fields.get("SequenceNumber"),
    )


def sent_result(index: int, queue: QueueInfo, message: NewMessage, sent: Sent) -> SendResult:
    one = sent_message(queue, message, sent)
    return SendResult(
        index,
        message_id=one.message_id,
        md5_of_body=one.md5_of_body,
        md5_of_attributes=one.md5_of_attributes,
        sequence_number=one.sequence_number,
    )


def received_message(received: Received) -> ReceivedMessage:
    record, delivery = received.record, received.delivery
    attributes = {}
    for name, attribute in record.attributes.items():
        wire = message_attributes.to_wire(attribute)
        attributes[name] = MessageAttributeValue(
            data_type=wire["DataType"],
            string_value=wire.get("StringValue"),
            binary_value=wire.get("BinaryValue"),
        )
    return ReceivedMessage(
        message_id=record.message_id,
        receipt_handle=delivery.receipt_handle,
        body=record.body.decode(),
        md5_of_body=md5_hex(record.body),
        attributes=attributes,
        system_attributes={
            name: value.string_value
            for name, value in record.system_attributes.items()
            if value.string_value is not None
        },
        receive_count=delivery.receive_count,
        sent_timestamp=record.timestamp_ms,
        first_receive_timestamp=delivery.first_receive_ms,
        group_id=record.group_id,
        dedup_id=record.dedup_id,
        sequence_number=f"{record.offset:020d}" if received.fifo else None,
    )
