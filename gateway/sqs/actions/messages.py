"""Message actions: send, receive, delete, change visibility (one message each), and the
pieces the batch actions share with them."""

from __future__ import annotations

import re

from control_plane.queues import QueueInfo
from gateway.broker import NewMessage, SentMessage
from gateway.receiver import DEAD_LETTER_SOURCE, ReceivedMessage
from gateway.sqs import message_attributes
from gateway.sqs.actions.context import Response, SqsContext, action
from gateway.sqs.errors import SqsError, invalid_parameter, missing_parameter
from gateway.sqs.md5 import md5_hex, md5_of_attributes
from gateway.sqs.params import Params, object_map, optional_int, required_str, string_list

MAX_VISIBILITY_S = 43_200


@action("SendMessage")
async def send_message(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    message = new_message(queue, params)
    if message_size(message) > ctx.message_limit(queue):
        raise too_long(ctx.message_limit(queue))
    [sent] = await ctx.broker.send(queue, [message])
    return sent_fields(queue, message, sent)


@action("ReceiveMessage")
async def receive_message(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    max_messages = optional_int(params, "MaxNumberOfMessages", 1, 10) or 1
    visibility_s = optional_int(params, "VisibilityTimeout", 0, MAX_VISIBILITY_S)
    wait_s = optional_int(params, "WaitTimeSeconds", 0, 20)
    system_names = set(string_list(params, "AttributeNames")) | set(
        string_list(params, "MessageSystemAttributeNames")
    )
    attribute_names = string_list(params, "MessageAttributeNames")
    received = await ctx.broker.receive(
        queue,
        max_messages=max_messages,
        visibility_timeout_ms=(
            queue.visibility_timeout_ms if visibility_s is None else visibility_s * 1000
        ),
        wait_ms=queue.receive_wait_ms if wait_s is None else wait_s * 1000,
    )
    messages = [message_out(ctx, m, system_names, attribute_names) for m in received]
    return {"Messages": messages} if messages else {}


@action("DeleteMessage")
async def delete_message(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    [error] = await ctx.broker.delete_messages(queue, [required_str(params, "ReceiptHandle")])
    if error is not None:
        raise error
    return {}


@action("ChangeMessageVisibility")
async def change_message_visibility(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    handle = required_str(params, "ReceiptHandle")
    [error] = await ctx.broker.change_visibility(queue, [(handle, visibility_ms(params))])
    if error is not None:
        raise error
    return {}


def visibility_ms(params: Params) -> int:
    if params.get("VisibilityTimeout") is None:
        raise missing_parameter("VisibilityTimeout")
    timeout_s = optional_int(params, "VisibilityTimeout", 0, MAX_VISIBILITY_S)
    assert timeout_s is not None
    return timeout_s * 1000


def new_message(queue: QueueInfo, params: Params) -> NewMessage:
    """A message to send, from SendMessage's (or a batch entry's) parameters, validated."""
    body = _message_body(params)
    delay_s = optional_int(params, "DelaySeconds", 0, 900)
    group_id = _fifo_id(params, "MessageGroupId")
    dedup_id = _fifo_id(params, "MessageDeduplicationId")
    check_queue_type(queue, delay_s, group_id, dedup_id)
    return NewMessage(
        body=body,
        attributes=message_attributes.parse(object_map(params, "MessageAttributes")),
        system_attributes=message_attributes.parse_system(
            object_map(params, "MessageSystemAttributes")
        ),
        delay_ms=None if delay_s is None else delay_s * 1000,
        group_id=group_id,
        dedup_id=dedup_id,
    )


def check_queue_type(
    queue: QueueInfo, delay_s: int | None, group_id: str | None, dedup_id: str | None
) -> None:
    """FIFO queues need a group (and a deduplication id or content-based deduplication)
    and take no per-message delay; standard queues take no deduplication id."""
    if queue.fifo:
        if delay_s is not None:
            raise _not_for_this_queue_type("DelaySeconds", delay_s)
        if group_id is None:
            raise missing_parameter("MessageGroupId")
        if dedup_id is None and not queue.content_based_deduplication:
            raise invalid_parameter(
                "The queue should either have ContentBasedDeduplication enabled or "
                "MessageDeduplicationId provided explicitly"
            )
    elif dedup_id is not None:
        raise _not_for_this_queue_type("MessageDeduplicationId", dedup_id)


def message_size(message: NewMessage) -> int:
    """What counts against MaximumMessageSize: the body and the user attributes."""
    if not message.attributes:
        return len(message.body)
    return len(message.body) + message_attributes.size_bytes(message.attributes)


def sent_fields(queue: QueueInfo, message: NewMessage, sent: SentMessage) -> Response:
    response: Response = {"MessageId": sent.message_id, "MD5OfMessageBody": md5_hex(message.body)}
    if queue.fifo:
        response["SequenceNumber"] = sent.sequence_number
    if message.attributes:
        response["MD5OfMessageAttributes"] = md5_of_attributes(message.attributes)
    if message.system_attributes:
        response["MD5OfMessageSystemAttributes"] = md5_of_attributes(message.system_attributes)
    return response


def message_out(
    ctx: SqsContext, received: ReceivedMessage, system_names: set[str], attribute_names: list[str]
) -> Response:
    record, delivery = received.record, received.delivery
    message: Response = {
        "MessageId": record.message_id,
        "ReceiptHandle": delivery.receipt_handle,
        "MD5OfBody": md5_hex(record.body),
        "Body": record.body.decode(),
    }
    system = {
        "SenderId": ctx.account_id,
        "SentTimestamp": str(record.timestamp_ms),
        "ApproximateReceiveCount": str(delivery.receive_count),
        "ApproximateFirstReceiveTimestamp": str(delivery.first_receive_ms),
    }
    for name in ("AWSTraceHeader", DEAD_LETTER_SOURCE):
        value = record.system_attributes.get(name)
        if value is not None and value.string_value is not None:
            system[name] = value.string_value
    if record.group_id is not None:
        system["MessageGroupId"] = record.group_id
    if record.dedup_id is not None:
        system["MessageDeduplicationId"] = record.dedup_id
    if received.fifo:
        system["SequenceNumber"] = f"{record.offset:020d}"
    if "All" not in system_names:
        system = {k: v for k, v in system.items() if k in system_names}
    if system:
        message["Attributes"] = system
    selected = message_attributes.select(record.attributes, attribute_names)
    if selected:
        message["MessageAttributes"] = {
            name: message_attributes.to_wire(a) for name, a in selected.items()
        }
        message["MD5OfMessageAttributes"] = md5_of_attributes(selected)
    return message


# Characters SQS allows in a message body (the XML 1.0 character range).
_INVALID_BODY_CHARS = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _message_body(params: Params) -> bytes:
    body = params.get("MessageBody")
    if body is None or body == "":
        raise missing_parameter("MessageBody")
    if not isinstance(body, str):
        raise invalid_parameter("Value for parameter MessageBody must be a string.")
    return body_bytes(body)


def body_bytes(body: str) -> bytes:
    """A non-empty message body, checked for the characters SQS refuses, as UTF-8."""
    # Printable text (most bodies) has none of them; `isprintable` is a C loop, several
    # times faster than the search, which looks only at the rest.
    bad = None if body.isprintable() else _INVALID_BODY_CHARS.search(body)
    if bad:
        raise SqsError(
            "InvalidMessageContents",
            f"Invalid characters found. Character #x{ord(bad.group()):X} is not allowed.",
        )
    return body.encode()


# Group and deduplication ids: 1-128 alphanumeric or punctuation characters.
_FIFO_ID = re.compile(r"^[A-Za-z0-9!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]{1,128}\Z")


def _fifo_id(params: Params, name: str) -> str | None:
    value = params.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise _invalid_fifo_id(name, value)
    return fifo_id(name, value)


def fifo_id(name: str, value: str) -> str:
    """A message group or deduplication id (parameter `name`), checked."""
    if not _FIFO_ID.match(value):
        raise _invalid_fifo_id(name, value)
    return value


def _invalid_fifo_id(name: str, value: object) -> SqsError:
    return invalid_parameter(
        f"Value {value} for parameter {name} is invalid. Reason: it must be 1 to 128 "
        "alphanumeric or punctuation characters."
    )


def _not_for_this_queue_type(name: str, value: object) -> SqsError:
    return invalid_parameter(
        f"Value {value} for parameter {name} is invalid. Reason: The request include "
        "parameter that is not valid for this queue type."
    )


def too_long(limit_bytes: int) -> SqsError:
    return invalid_parameter(
        "One or more parameters are invalid. Reason: Message must be shorter than "
        f"{limit_bytes} bytes."
    )
