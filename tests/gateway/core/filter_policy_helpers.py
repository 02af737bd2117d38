"""Shorthands for the filter policy tests: a policy as a dict, a message as plain values."""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal

from gateway.core.filter_policies import parse_filter_policy
from storage_nodes.node import MessageAttribute

AttributeValue = str | int | float | Decimal | list[object] | bytes | MessageAttribute


def attribute(value: AttributeValue) -> MessageAttribute:
    """str -> String, a number -> Number, list -> String.Array (as JSON), bytes -> Binary."""
    if isinstance(value, MessageAttribute):
        return value
    if isinstance(value, bytes):
        return MessageAttribute("Binary", binary_value=value)
    if isinstance(value, list):
        return MessageAttribute("String.Array", string_value=json.dumps(value))
    if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
        return MessageAttribute("Number", string_value=str(value))
    assert isinstance(value, str)
    return MessageAttribute("String", string_value=value)


def number(text: str) -> MessageAttribute:
    return MessageAttribute("Number", string_value=text)


def accepts(policy: Mapping[str, object], attributes: Mapping[str, AttributeValue]) -> bool:
    """Whether `policy`, in MessageAttributes scope, takes a message with `attributes`."""
    compiled = parse_filter_policy(json.dumps(policy))
    return compiled.matches({name: attribute(v) for name, v in attributes.items()}, b"")


def accepts_body(policy: Mapping[str, object], body: object) -> bool:
    """Whether `policy`, in MessageBody scope, takes a message with `body` (bytes as they
    are, anything else as its JSON)."""
    compiled = parse_filter_policy(json.dumps(policy), "MessageBody")
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return compiled.matches({}, raw)
