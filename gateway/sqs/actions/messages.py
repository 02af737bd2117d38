"""Message actions: send, receive, delete, change visibility (one message each), and the
pieces the batch actions share with them."""

from __future__ import annotations

from gateway.core.digests import md5_of_attributes, md5_of_body
from gateway.core.messages import DEAD_LETTER_SOURCE, MessageDraft, ReceivedMessage, SentMessage
from gateway.core.validation import FieldNames, check_fifo_id
from gateway.sqs import message_attributes
from gateway.sqs.actions.context import Response, SqsContext, action
from gateway.sqs.errors import invalid_parameter, missing_parameter, visibility_refused
from gateway.sqs.params import Params, object_map, optional_int, required_str, string_list

MAX_VISIBILITY_S = 43_200
MAX_DELAY_S = 900
FIELD_NAMES = FieldNames(
    body="MessageBody",
    group_id="MessageGroupId",
    dedup_id="MessageDeduplicationId",
    delay_seconds="DelaySeconds",
    delay_level="DelayLevel",
)


@action("SendMessage")
async def send_message(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    sent = await ctx.broker.send_message(queue, message_draft(params), FIELD_NAMES)
    return sent_fields(sent)


@action("ReceiveMessage")
async def receive_message(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    max_messages = optional_int(params, "MaxNumberOfMessages", 1, 10) or 1
    visibility_s = optional_int(params, "VisibilityTimeout", 0, MAX_VISIBILITY_S)
    wait_s = optional_int(params, "WaitTimeSeconds", 0, 20, "Must be >= 0 and <= 20, if provided.")
    system_names = set(string_list(params, "AttributeNames")) | set(
        string_list(params, "MessageSystemAttributeNames")
    )
    attribute_names = string_list(params, "MessageAttributeNames")
    received = await ctx.broker.receive(
        queue,
        max_messages=max_messages,
        visibility_timeout_ms=None if visibility_s is None else visibility_s * 1000,
        wait_ms=None if wait_s is None else wait_s * 1000,
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
        raise visibility_refused(error, handle)
    return {}


def visibility_ms(params: Params) -> int:
    """A visibility change's new timeout, 0-43200 s. SQS words one too long by the 12
    hours a message may stay in flight, which it surely would be then."""
    value = params.get("VisibilityTimeout")
    if value is None:
        raise missing_parameter("VisibilityTimeout")
    too_long = isinstance(value, int) and value > MAX_VISIBILITY_S
    reason = (
        f"Total VisibilityTimeout for the message is beyond the limit [{MAX_VISIBILITY_S} seconds]"
        if too_long
        else None
    )
    timeout_s = optional_int(params, "VisibilityTimeout", 0, MAX_VISIBILITY_S, reason)
    assert timeout_s is not None
    return timeout_s * 1000


def message_draft(params: Params) -> MessageDraft:
    """A message to send, from SendMessage's (or a batch entry's) parameters, as typed by
    the wire; the core checks the rest."""
    body = params.get("MessageBody")
    if body is None or body == "":
        raise missing_parameter("MessageBody")
    if not isinstance(body, str):
        raise invalid_parameter("Value for parameter MessageBody must be a string.")
    return MessageDraft(
        body=body,
        attributes=message_attributes.drafts(object_map(params, "MessageAttributes")),
        system_attributes=message_attributes.drafts(object_map(params, "MessageSystemAttributes")),
        delay_seconds=_delay_seconds(params),
        group_id=_fifo_id(params, "MessageGroupId"),
        dedup_id=_fifo_id(params, "MessageDeduplicationId"),
    )


def _delay_seconds(params: Params) -> int | None:
    """A message's DelaySeconds, 0-900, refused in SQS's words."""
    value = params.get("DelaySeconds")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_DELAY_S:
        raise invalid_parameter(
            f"Value {value} for parameter DelaySeconds is invalid. "
            f"Reason: DelaySeconds must be >= 0 and <= {MAX_DELAY_S}."
        )
    return value


def _fifo_id(params: Params, name: str) -> str | None:
    value = params.get(name)
    return None if value is None else check_fifo_id(name, value)


def sent_fields(sent: SentMessage) -> Response:
    response: Response = {"MessageId": sent.message_id, "MD5OfMessageBody": sent.md5_of_body}
    if sent.sequence_number is not None:
        response["SequenceNumber"] = sent.sequence_number
    if sent.md5_of_attributes is not None:
        response["MD5OfMessageAttributes"] = sent.md5_of_attributes
    if sent.md5_of_system_attributes is not None:
        response["MD5OfMessageSystemAttributes"] = sent.md5_of_system_attributes
    return response


def message_out(
    ctx: SqsContext, received: ReceivedMessage, system_names: set[str], attribute_names: list[str]
) -> Response:
    record, delivery = received.record, received.delivery
    message: Response = {
        "MessageId": record.message_id,
        "ReceiptHandle": delivery.receipt_handle,
        "MD5OfBody": md5_of_body(record),
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
    if received.sequence_number is not None:
        system["SequenceNumber"] = received.sequence_number
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
