"""The SQS actions, one coroutine each: JSON 1.0 request parameters in, response out.

Every handler validates all of its input before it calls the broker, so a bad request is
a 4xx that changed nothing. Handlers are registered by their SQS action name.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from control_plane.queues import QueueInfo
from gateway.broker import Broker, NewMessage, ReceivedMessage
from gateway.sqs import message_attributes, queue_urls
from gateway.sqs.errors import SqsError, invalid_parameter, missing_parameter
from gateway.sqs.md5 import md5_hex, md5_of_attributes
from gateway.sqs.params import (
    Params,
    object_map,
    optional_int,
    optional_str,
    required_str,
    string_list,
    string_map,
)

Response = dict[str, Any]


@dataclass(frozen=True, slots=True)
class SqsContext:
    broker: Broker
    account_id: str
    base_url: str  # scheme://host[:port] that queue URLs are built on

    async def queue(self, params: Params) -> QueueInfo:
        account_id, name = queue_urls.resolve(required_str(params, "QueueUrl"), self.account_id)
        return await self.broker.get_queue(account_id, name)

    def queue_url(self, name: str) -> str:
        return queue_urls.build(self.base_url, self.account_id, name)


Handler = Callable[[SqsContext, Params], Awaitable[Response]]
ACTIONS: dict[str, Handler] = {}


def action(name: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        ACTIONS[name] = handler
        return handler

    return register


@action("CreateQueue")
async def create_queue(ctx: SqsContext, params: Params) -> Response:
    name = queue_urls.check_queue_name(required_str(params, "QueueName"))
    attributes = string_map(params, "Attributes")
    if string_map(params, "tags"):
        raise SqsError("UnsupportedOperation", "Queue tags are not supported yet.")
    _refuse_delay(attributes.get("DelaySeconds"))
    await ctx.broker.create_queue(ctx.account_id, name, attributes)
    return {"QueueUrl": ctx.queue_url(name)}


@action("GetQueueUrl")
async def get_queue_url(ctx: SqsContext, params: Params) -> Response:
    name = required_str(params, "QueueName")
    owner = optional_str(params, "QueueOwnerAWSAccountId")
    if owner not in (None, ctx.account_id):
        raise SqsError("QueueDoesNotExist", "The specified queue does not exist.")
    account_id, name = queue_urls.resolve(name, ctx.account_id)
    await ctx.broker.get_queue(account_id, name)
    return {"QueueUrl": ctx.queue_url(name)}


@action("ListQueues")
async def list_queues(ctx: SqsContext, params: Params) -> Response:
    prefix = optional_str(params, "QueueNamePrefix") or ""
    max_results = optional_int(params, "MaxResults", 1, 1000)
    after = optional_str(params, "NextToken") or ""
    names = [n for n in await ctx.broker.list_queues(ctx.account_id, prefix) if n > after]
    response: Response = {}
    if max_results is not None and len(names) > max_results:
        names = names[:max_results]
        response["NextToken"] = names[-1]
    response["QueueUrls"] = [ctx.queue_url(n) for n in names]
    return response


@action("DeleteQueue")
async def delete_queue(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    await ctx.broker.delete_queue(queue.account_id, queue.name)
    return {}


@action("GetQueueAttributes")
async def get_queue_attributes(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    wanted = set(string_list(params, "AttributeNames"))
    stats = await ctx.broker.queue_stats(queue)
    everything = {
        **queue.all_attributes(),
        "QueueArn": f"arn:aws:sqs:us-east-1:{queue.account_id}:{queue.name}",
        "CreatedTimestamp": str(queue.created_ms // 1000),
        "LastModifiedTimestamp": str(queue.created_ms // 1000),
        "ApproximateNumberOfMessages": str(stats.visible),
        "ApproximateNumberOfMessagesNotVisible": str(stats.in_flight),
        "ApproximateNumberOfMessagesDelayed": "0",
    }
    unknown = wanted - set(everything) - {"All"}
    if unknown:
        raise SqsError("InvalidAttributeName", f"Unknown Attribute {sorted(unknown)[0]}.")
    if "All" not in wanted:
        everything = {k: v for k, v in everything.items() if k in wanted}
    return {"Attributes": everything} if everything else {}


@action("SendMessage")
async def send_message(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    body = _message_body(params)
    _refuse_delay(params.get("DelaySeconds"))
    attributes = message_attributes.parse(object_map(params, "MessageAttributes"))
    system = message_attributes.parse_system(object_map(params, "MessageSystemAttributes"))
    size = len(body) + message_attributes.size_bytes(attributes)
    if size > queue.max_message_bytes:
        raise invalid_parameter(
            f"One or more parameters are invalid. Reason: Message must be shorter than "
            f"{queue.max_message_bytes} bytes."
        )
    [sent] = await ctx.broker.send(queue, [NewMessage(body, attributes, system)])
    response: Response = {"MessageId": sent.message_id, "MD5OfMessageBody": md5_hex(body)}
    if attributes:
        response["MD5OfMessageAttributes"] = md5_of_attributes(attributes)
    if system:
        response["MD5OfMessageSystemAttributes"] = md5_of_attributes(system)
    return response


@action("ReceiveMessage")
async def receive_message(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    max_messages = optional_int(params, "MaxNumberOfMessages", 1, 10) or 1
    visibility_s = optional_int(params, "VisibilityTimeout", 0, 43_200)
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
    messages = [_message(ctx, m, system_names, attribute_names) for m in received]
    return {"Messages": messages} if messages else {}


@action("DeleteMessage")
async def delete_message(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    await ctx.broker.delete_message(queue, required_str(params, "ReceiptHandle"))
    return {}


@action("ChangeMessageVisibility")
async def change_message_visibility(ctx: SqsContext, params: Params) -> Response:
    queue = await ctx.queue(params)
    handle = required_str(params, "ReceiptHandle")
    if params.get("VisibilityTimeout") is None:
        raise missing_parameter("VisibilityTimeout")
    timeout_s = optional_int(params, "VisibilityTimeout", 0, 43_200)
    assert timeout_s is not None
    if not await ctx.broker.change_visibility(queue, handle, timeout_s * 1000):
        raise SqsError(
            "MessageNotInflight",
            "Message does not exist or is not available for visibility timeout change.",
        )
    return {}


# Characters SQS allows in a message body (the XML 1.0 character range).
_INVALID_BODY_CHARS = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _message_body(params: Params) -> bytes:
    body = params.get("MessageBody")
    if body is None or body == "":
        raise missing_parameter("MessageBody")
    if not isinstance(body, str):
        raise invalid_parameter("Value for parameter MessageBody must be a string.")
    bad = _INVALID_BODY_CHARS.search(body)
    if bad:
        raise SqsError(
            "InvalidMessageContents",
            f"Invalid characters found. Character #x{ord(bad.group()):X} is not allowed.",
        )
    return body.encode()


def _refuse_delay(delay: object) -> None:
    if delay not in (None, 0, "0"):
        raise SqsError(
            "UnsupportedOperation",
            "Delayed delivery (DelaySeconds) is not supported by this TideMQ version yet.",
        )


def _message(
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
    trace = record.system_attributes.get("AWSTraceHeader")
    if trace is not None and trace.string_value is not None:
        system["AWSTraceHeader"] = trace.string_value
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
