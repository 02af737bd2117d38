"""Checking a message before anything is done with it, the same way for every protocol.

A protocol hands over what its client wrote as a MessageInput (gateway/core/messages.py);
`check_message` applies SQS's rules to it (body characters, FIFO ids, what the queue's
type allows, message attributes) and returns the NewMessage to send, or raises a
CoreError naming the offending field in the protocol's own words (`FieldNames`).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from control_plane.delay_levels import delay_ms_for_level
from control_plane.queues import QueueInfo
from control_plane.text_rules import describe_char, forbidden_char
from gateway.core.errors import CoreError, invalid_parameter, missing_parameter
from gateway.core.messages import AttributeInput, MessageAttribute, MessageInput, NewMessage


@dataclass(frozen=True, slots=True)
class FieldNames:
    """What a protocol calls a message's fields, for the error messages that name them."""

    body: str
    group_id: str
    dedup_id: str
    delay_seconds: str
    delay_level: str
    subject: str = "subject"  # what only a message to a topic has


MAX_ATTRIBUTES = 10
SYSTEM_ATTRIBUTE_NAMES = frozenset({"AWSTraceHeader"})
_NO_ATTRIBUTES: Mapping[str, MessageAttribute] = {}


def check_message(queue: QueueInfo, draft: MessageInput, names: FieldNames) -> NewMessage:
    """The message to send, checked in SQS's order: body, ids, queue type, attributes."""
    # Every message sent is checked here: what most messages lack (ids, attributes, a
    # delay) costs a test, not a call.
    body = body_bytes(draft.body)
    if draft.subject is not None:
        raise invalid_parameter(
            f"Only a message published to a topic has a {names.subject}; queues take none."
        )
    group_id, dedup_id = draft.group_id, draft.dedup_id
    if group_id is not None:
        check_fifo_id(names.group_id, group_id)
    if dedup_id is not None:
        check_fifo_id(names.dedup_id, dedup_id)
    fifo = queue.fifo
    if fifo or dedup_id is not None:
        _check_queue_type(queue, draft, names)
    # A FIFO queue's own DelaySeconds applies; SQS takes an explicit 0 as no delay.
    delay_s = None if fifo else draft.delay_seconds
    attributes, system_attributes = draft.attributes, draft.system_attributes
    message = NewMessage(
        body,
        message_attributes(attributes) if attributes else _NO_ATTRIBUTES,
        _system_attributes(system_attributes) if system_attributes else _NO_ATTRIBUTES,
        None if delay_s is None else delay_s * 1000,
        group_id,
        dedup_id,
    )
    if draft.delay_level is not None:
        if delay_s is not None:
            raise invalid_parameter(f"Give {names.delay_seconds} or {names.delay_level}, not both.")
        if fifo:
            raise invalid_parameter(
                f"FIFO queues take no per-message delay: {names.delay_level} is not valid for them."
            )
        message.delay_ms = delay_ms_for_level(draft.delay_level)
    return message


def _check_queue_type(queue: QueueInfo, draft: MessageInput, names: FieldNames) -> None:
    """FIFO queues need a group (and a deduplication id or content-based deduplication)
    and take no per-message delay (0 is accepted, as SQS does); standard queues take no
    deduplication id."""
    if queue.fifo:
        if draft.delay_seconds:
            raise _not_for_this_queue_type(names.delay_seconds, draft.delay_seconds)
        if draft.group_id is None:
            raise missing_parameter(names.group_id)
        if draft.dedup_id is None and not queue.settings.content_based_deduplication:
            raise invalid_parameter(
                "The queue should either have ContentBasedDeduplication enabled or "
                f"{names.dedup_id} provided explicitly"
            )
    elif draft.dedup_id is not None:
        raise _not_for_this_queue_type(names.dedup_id, draft.dedup_id)


def message_size(message: NewMessage) -> int:
    """What counts against MaximumMessageSize: the body and the user attributes."""
    if not message.attributes:
        return len(message.body)
    return len(message.body) + attributes_size(message.attributes)


def attributes_size(attributes: Mapping[str, MessageAttribute]) -> int:
    """What attributes count towards MaximumMessageSize: names, types and values."""
    total = 0
    for name, attribute in attributes.items():
        total += len(name.encode()) + len(attribute.data_type.encode())
        if attribute.binary_value is not None:
            total += len(attribute.binary_value)
        else:
            total += len((attribute.string_value or "").encode())
    return total


def body_bytes(body: str) -> bytes:
    """A message body, checked for the characters SQS refuses, as UTF-8."""
    bad = forbidden_char(body)
    if bad is not None:
        raise CoreError(
            "InvalidMessageContents",
            f"Invalid characters found. Character {describe_char(bad)} is not allowed.",
        )
    return body.encode()


# Group and deduplication ids: 1-128 alphanumeric or punctuation characters.
_FIFO_ID = re.compile(r"^[A-Za-z0-9!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]{1,128}\Z")


def check_fifo_id(name: str, value: object) -> str:
    """A message group or deduplication id (field `name`), checked."""
    if not isinstance(value, str) or not _FIFO_ID.match(value):
        raise invalid_parameter(
            f"Value {value} for parameter {name} is invalid. Reason: it must be 1 to 128 "
            "alphanumeric or punctuation characters."
        )
    return value


def _not_for_this_queue_type(name: str, value: object) -> CoreError:
    return invalid_parameter(
        f"Value {value} for parameter {name} is invalid. Reason: The request include "
        "parameter that is not valid for this queue type."
    )


# -- message attributes -----------------------------------------------------------------

_NAME = re.compile(r"^[A-Za-z0-9_\-.]{1,256}\Z")
# A type, and an optional custom type after a period (A-Z, a-z, 0-9, _ - .).
_DATA_TYPE = re.compile(r"^(String|Number|Binary)(\.[A-Za-z0-9_\-.]+)?\Z")
_MAX_DATA_TYPE_BYTES = 256
_RESERVED_PREFIXES = ("aws.", "amazon.")
# SQS's numbers in ASCII: Decimal() also takes other digits, spaces, "_", "Infinity".
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
TRACE_HEADER = "AWSTraceHeader"
# What SQS calls the two kinds in its messages: "Message (user) attribute 'a' ...".
_USER = "(user)"
_SYSTEM = "system"


def message_attributes(
    given: Mapping[str, AttributeInput] | None,
) -> Mapping[str, MessageAttribute]:
    """The checked message attributes of a send or a publish (SQS's rules, which SNS
    shares: at most ten, names, types, values)."""
    if not given:
        return _NO_ATTRIBUTES
    if len(given) > MAX_ATTRIBUTES:
        raise invalid_parameter(
            f"Number of message attributes [{len(given)}] exceeds the allowed maximum "
            f"[{MAX_ATTRIBUTES}]."
        )
    checked = {}
    for name, draft in given.items():
        _check_name(name)
        checked[name] = _attribute(name, draft, _USER)
    return checked


def _system_attributes(
    given: Mapping[str, AttributeInput] | None,
) -> Mapping[str, MessageAttribute]:
    """MessageSystemAttributes of a send: only AWSTraceHeader, a String."""
    if not given:
        return _NO_ATTRIBUTES
    checked = {}
    for name, draft in given.items():
        if name not in SYSTEM_ATTRIBUTE_NAMES:
            raise invalid_parameter(f"Message system attribute name '{name}' is invalid.")
        attribute = _attribute(name, draft, _SYSTEM)
        if attribute.data_type != "String":
            raise invalid_parameter(
                f"The message system attribute '{TRACE_HEADER}' is reserved for AWS X-Ray "
                "trace header. The type must be 'String'."
            )
        checked[name] = attribute
    return checked


def _check_name(name: str) -> None:
    if not name:
        raise invalid_parameter("The request must contain non-empty message attribute name.")
    lowered = name.lower()
    if (
        not _NAME.match(name)
        or lowered.startswith(_RESERVED_PREFIXES)
        or name.startswith(".")
        or name.endswith(".")
        or ".." in name
    ):
        raise invalid_parameter(
            f"The message attribute name '{name}' is invalid. Names can contain "
            "alphanumeric characters, hyphens, underscores and periods, must not start "
            "with 'AWS.' or 'Amazon.', and must not start, end or have consecutive periods."
        )


def _attribute(name: str, draft: AttributeInput, kind: str) -> MessageAttribute:
    """One attribute, checked in SQS's order and refused in its words: the type, then a
    value given (exactly one, in the field the type uses), then the value itself."""
    data_type, text, encoded = draft.data_type, draft.string_value, draft.binary_value
    if not data_type:
        raise invalid_parameter(
            f"The message {kind} attribute '{name}' must contain a non-empty message "
            "attribute type."
        )
    if not _DATA_TYPE.match(data_type):
        raise invalid_parameter(
            f"The type of message {kind} attribute '{name}' is invalid. You must use only "
            "the following supported type prefixes: Binary, Number, String."
        )
    if text == "" or encoded == "" or (text is None and encoded is None):
        raise _missing_value(name, data_type, kind)
    if text is not None and encoded is not None:
        raise invalid_parameter(f"Message {kind} attribute '{name}' must have a single value.")
    if len(data_type.encode()) > _MAX_DATA_TYPE_BYTES:
        raise invalid_parameter(
            f"Message {kind} attribute type must be shorter than {_MAX_DATA_TYPE_BYTES} bytes."
        )
    base_type = data_type.partition(".")[0]
    field = "Binary" if base_type == "Binary" else "String"
    if (encoded if field == "Binary" else text) is None:
        raise invalid_parameter(
            f"Message {kind} attribute '{name}' with type '{base_type}' must use field '{field}'."
        )
    if text is None:
        return MessageAttribute(data_type, binary_value=_binary(name, data_type, encoded, kind))
    if base_type == "Number":
        _check_number(name, text, kind)
    else:
        bad = forbidden_char(text)
        if bad is not None:
            raise invalid_parameter(
                f"The message attribute '{name}' has an invalid value: character "
                f"{describe_char(bad)} is not allowed."
            )
    return MessageAttribute(data_type, string_value=text)


def _binary(name: str, data_type: str, encoded: str | None, kind: str) -> bytes:
    try:
        decoded = base64.b64decode(encoded or "", validate=True)
    except (binascii.Error, ValueError) as exc:
        raise invalid_parameter(
            f"The message attribute '{name}' has an invalid base64 binary value."
        ) from exc
    if not decoded:
        raise _missing_value(name, data_type, kind)
    return decoded


def _check_number(name: str, text: str, kind: str) -> None:
    try:
        number = Decimal(text) if _NUMBER.fullmatch(text) else Decimal("NaN")
    except InvalidOperation:
        number = Decimal("NaN")
    # SQS numbers: up to 38 significant digits, between -10^128 and 10^126.
    if (
        not number.is_finite()
        or len(number.as_tuple().digits) > 38
        or abs(number) > Decimal("1e126")
    ):
        raise invalid_parameter(
            f"Can't cast the value of message {kind} attribute '{name}' to a number."
        )


def _missing_value(name: str, data_type: str, kind: str) -> CoreError:
    return invalid_parameter(
        f"Message {kind} attribute '{name}' must contain a non-empty value of type '{data_type}'."
    )
