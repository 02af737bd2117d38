"""Reading an SNS action's parameters (as gateway/sns/query_protocol.py parsed them)
into the core's values."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from gateway.core.errors import CoreError
from gateway.core.messages import AttributeDraft


def required(params: Mapping[str, Any], name: str) -> Any:
    value = params.get(name)
    if value is None or value == "":
        raise CoreError(
            "ValidationError",
            f"1 validation error detected: Value null at '{name[0].lower()}{name[1:]}' failed "
            "to satisfy constraint: Member must not be null",
        )
    return value


def attributes_map(given: Mapping[str, Any] | None) -> dict[str, str]:
    return {str(k): str(v) for k, v in (given or {}).items()}


def tag_list(given: Any) -> dict[str, str]:
    tags: dict[str, str] = {}
    for tag in given or []:
        tags[str(tag.get("Key", ""))] = str(tag.get("Value", ""))
    return tags


def message_attributes(given: Mapping[str, Any] | None) -> dict[str, AttributeDraft] | None:
    if not given:
        return None
    drafts = {}
    for name, value in given.items():
        binary = value.get("BinaryValue")
        if isinstance(binary, bytes):
            binary = base64.b64encode(binary).decode()
        drafts[name] = AttributeDraft(
            data_type=value.get("DataType") or "",
            string_value=value.get("StringValue"),
            binary_value=binary,
        )
    return drafts
