"""Messages between the REST API's fields and the broker's values.

A message to send is checked by the SQS API's own rules (gateway/sqs/actions/messages.py,
gateway/sqs/message_attributes.py), applied to the fields msgspec has already typed, so
both APIs take exactly the same messages without re-packing each REST message into SQS
parameters; the SQS parameter names in the shared checks' error messages are put back
into REST field names. Digests are SQS's, so a message sent on one API and received on
the other has the MD5s an SDK checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

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
from gateway.sqs.actions.messages import body_bytes, check_queue_type, fifo_id
from gateway.sqs.errors import SqsError
from gateway.sqs.md5 import md5_hex, md5_of_attributes
from storage_nodes.log.record import MessageAttribute

# SQS parameter names in the shared checks' messages -> the REST API's field names.
_FIELD_NAMES = {
    "MessageBody": "body",
    "MessageGroupId": "group_id",
    "MessageDeduplicationId": "dedup_id",
    "DelaySeconds": "delay_seconds",
    "MessageAttributes": "attributes",
    "MessageSystemAttributes": "system_attributes",
}
_NO_ATTRIBUTES: Mapping[str, MessageAttribute] = {}


def checked_message(queue: QueueInfo, request: SendMessage) -> NewMessage:
    """The message to send, checked by the SQS API's rules, with its delay level."""
    try:
        message = _new_message(queue, request)
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


def _new_message(queue: QueueInfo, request: SendMessage) -> NewMessage:
    """As the SQS API's `new_message`, in the same order of checks; msgspec has already
    checked the types, the body's length and the delay's range."""
    body = body_bytes(request.body)
    group_id, dedup_id = request.group_id, request.dedup_id
    if group_id is not None:
        fifo_id("MessageGroupId", group_id)
    if dedup_id is not None:
        fifo_id("MessageDeduplicationId", dedup_id)
    delay_s = request.delay_seconds
    check_queue_type(queue, delay_s, group_id, dedup_id)
    return NewMessage(
        body=body,
        attributes=_attributes(request.attributes),
        system_attributes=_system_attributes(request.system_attributes),
        delay_ms=None if delay_s is None else delay_s * 1000,
        group_id=group_id,
        dedup_id=dedup_id,
    )


def _attributes(
    given: Mapping[str, MessageAttributeValue] | None,
) -> Mapping[str, MessageAttribute]:
    if not given:
        return _NO_ATTRIBUTES
    message_attributes.check_count(len(given))
    parsed = {}
    for name, value in given.items():
        message_attributes.check_name(name)
        parsed[name] = _attribute(name, value)
    return parsed


def _system_attributes(
    given: Mapping[str, MessageAttributeValue] | None,
) -> Mapping[str, MessageAttribute]:
    if not given:
        return _NO_ATTRIBUTES
    parsed = {}
    for name, value in given.items():
        message_attributes.check_system_name(name)
        parsed[name] = message_attributes.check_system(name, _attribute(name, value))
    return parsed


def _attribute(name: str, value: MessageAttributeValue) -> MessageAttribute:
    return message_attributes.attribute(
        name, value.data_type, value.string_value, value.binary_value
    )


def sent_message(queue: QueueInfo, message: NewMessage, sent: Sent) -> SentMessage:
    """What a sender learns of a message sent: SQS's fields, under REST names."""
    return SentMessage(
        message_id=sent.message_id,
        md5_of_body=md5_hex(message.body),
        md5_of_attributes=md5_of_attributes(message.attributes) if message.attributes else None,
        sequence_number=sent.sequence_number if queue.fifo else None,
    )


def sent_result(index: int, queue: QueueInfo, message: NewMessage, sent: Sent) -> SendResult:
    return SendResult(
        index,
        message_id=sent.message_id,
        md5_of_body=md5_hex(message.body),
        md5_of_attributes=md5_of_attributes(message.attributes) if message.attributes else None,
        sequence_number=sent.sequence_number if queue.fifo else None,
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
