"""SQS message attributes on the wire: read from a request, selected and written for a
receive. What makes an attribute valid is the core's (gateway/core/validation.py)."""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from typing import Any

from gateway.core.messages import AttributeDraft, MessageAttribute


def drafts(raw: Mapping[str, Mapping[str, Any]]) -> dict[str, AttributeDraft]:
    """MessageAttributes (or MessageSystemAttributes) of a send, as given; a field of
    the wrong JSON type counts as absent."""
    return {name: _draft(value) for name, value in raw.items()}


def _draft(value: Mapping[str, Any]) -> AttributeDraft:
    data_type, text, encoded = (
        value.get("DataType"),
        value.get("StringValue"),
        value.get("BinaryValue"),
    )
    return AttributeDraft(
        data_type if isinstance(data_type, str) else "",
        text if isinstance(text, str) else None,
        encoded if isinstance(encoded, str) else None,
    )


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
