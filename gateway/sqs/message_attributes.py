"""SQS message attributes: parsing and validation, size, and selection on receive."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from gateway.sqs.errors import invalid_parameter
from storage_nodes.log.record import MessageAttribute

MAX_ATTRIBUTES = 10
_NAME = re.compile(r"^[A-Za-z0-9_\-.]{1,256}\Z")
_DATA_TYPE = re.compile(r"^(String|Number|Binary)(\.[A-Za-z0-9_\-.]{1,250})?\Z")
_RESERVED_PREFIXES = ("aws.", "amazon.")
SYSTEM_ATTRIBUTE_NAMES = frozenset({"AWSTraceHeader"})


def parse(raw: Mapping[str, Mapping[str, Any]]) -> dict[str, MessageAttribute]:
    """User MessageAttributes of a send, validated as SQS does."""
    check_count(len(raw))
    parsed = {}
    for name, value in raw.items():
        check_name(name)
        parsed[name] = _parse_value(name, value)
    return parsed


def parse_system(raw: Mapping[str, Mapping[str, Any]]) -> dict[str, MessageAttribute]:
    """MessageSystemAttributes of a send: only AWSTraceHeader, a String."""
    parsed = {}
    for name, value in raw.items():
        check_system_name(name)
        parsed[name] = check_system(name, _parse_value(name, value))
    return parsed


def check_count(count: int) -> None:
    if count > MAX_ATTRIBUTES:
        raise invalid_parameter(
            f"Number of message attributes [{count}] exceeds the allowed maximum "
            f"[{MAX_ATTRIBUTES}]."
        )


def check_system_name(name: str) -> None:
    if name not in SYSTEM_ATTRIBUTE_NAMES:
        raise invalid_parameter(f"Message system attribute name '{name}' is invalid.")


def check_system(name: str, attribute: MessageAttribute) -> MessageAttribute:
    if attribute.data_type != "String":
        raise invalid_parameter(f"Message system attribute '{name}' must be a String.")
    return attribute


def size_bytes(attributes: Mapping[str, MessageAttribute]) -> int:
    """What attributes count towards MaximumMessageSize: names, types and values."""
    total = 0
    for name, attribute in attributes.items():
        total += len(name.encode()) + len(attribute.data_type.encode())
        if attribute.binary_value is not None:
            total += len(attribute.binary_value)
        else:
            total += len((attribute.string_value or "").encode())
    return total


def select(
    attributes: Mapping[str, MessageAttribute], requested: Iterable[str]
) -> dict[str, MessageAttribute]:
    """The attributes a receive asked for: "All", ".*", "prefix.*" or exact names."""
    wanted = list(requested)
    if "All" in wanted or ".*" in wanted:
        return dict(attributes)
    prefixes = tuple(w[:-1] for w in wanted if w.endswith(".*"))
    exact = {w for w in wanted if not w.endswith(".*")}
    return {
        name: attribute
        for name, attribute in attributes.items()
        if name in exact or (prefixes and name.startswith(prefixes))
    }


def to_wire(attribute: MessageAttribute) -> dict[str, str]:
    wire = {"DataType": attribute.data_type}
    if attribute.binary_value is not None:
        wire["BinaryValue"] = base64.b64encode(attribute.binary_value).decode()
    else:
        wire["StringValue"] = attribute.string_value or ""
    return wire


def check_name(name: str) -> None:
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


def _parse_value(name: str, value: Mapping[str, Any]) -> MessageAttribute:
    data_type = value.get("DataType")
    if not isinstance(data_type, str) or not data_type:
        raise invalid_parameter(
            f"The message attribute '{name}' must contain non-empty message attribute type."
        )
    text, encoded = value.get("StringValue"), value.get("BinaryValue")
    return attribute(
        name,
        data_type,
        text if isinstance(text, str) else None,
        encoded if isinstance(encoded, str) else None,
    )


def attribute(
    name: str, data_type: str, string_value: str | None, binary_value: str | None
) -> MessageAttribute:
    """One attribute's value checked as SQS does (`binary_value` base64), given typed
    fields: the REST API's shapes have them so already."""
    if not _DATA_TYPE.match(data_type):
        raise invalid_parameter(
            f"The type of message attribute '{name}' is invalid. You must use only the "
            "following supported type prefixes: Binary, Number, String."
        )
    if data_type.startswith("Binary"):
        return MessageAttribute(data_type, binary_value=_binary(name, data_type, binary_value))
    if not string_value:
        raise _missing_value(name, data_type)
    if data_type.startswith("Number"):
        _check_number(name, string_value)
    return MessageAttribute(data_type, string_value=string_value)


def _binary(name: str, data_type: str, encoded: str | None) -> bytes:
    if not encoded:
        raise _missing_value(name, data_type)
    try:
        decoded = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise invalid_parameter(
            f"The message attribute '{name}' has an invalid base64 binary value."
        ) from exc
    if not decoded:
        raise _missing_value(name, data_type)
    return decoded


def _check_number(name: str, text: str) -> None:
    try:
        number = Decimal(text)
    except InvalidOperation:
        number = Decimal("NaN")
    # SQS numbers: up to 38 significant digits, between -10^128 and 10^126.
    if (
        not number.is_finite()
        or len(number.as_tuple().digits) > 38
        or abs(number) > Decimal("1e126")
    ):
        raise invalid_parameter(f"Could not cast message attribute '{name}' value to number.")


def _missing_value(name: str, data_type: str) -> Exception:
    return invalid_parameter(
        f"The message attribute '{name}' must contain non-empty message attribute value "
        f"for message attribute type '{data_type}'."
    )
