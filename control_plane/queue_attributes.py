"""SQS queue attributes: names, ranges and defaults, validated before anything is stored.

Values are kept as SQS keeps them, strings, so GetQueueAttributes returns what was set.
Only the attributes TideMQ implements are accepted; an unknown name is an
InvalidAttributeName error rather than a setting silently ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from control_plane.errors import InvalidAttributeName, InvalidAttributeValue


@dataclass(frozen=True, slots=True)
class IntRange:
    low: int
    high: int
    default: int


# name -> (range, default); the ranges are SQS's.
INTEGER_ATTRIBUTES: Mapping[str, IntRange] = {
    "DelaySeconds": IntRange(0, 900, 0),
    "MaximumMessageSize": IntRange(1024, 262_144, 262_144),
    "MessageRetentionPeriod": IntRange(60, 1_209_600, 345_600),
    "ReceiveMessageWaitTimeSeconds": IntRange(0, 20, 0),
    "VisibilityTimeout": IntRange(0, 43_200, 30),
}


def validate(attributes: Mapping[str, str]) -> dict[str, str]:
    """Checks names and ranges; returns the attributes normalised to canonical strings."""
    normalised: dict[str, str] = {}
    for name, value in attributes.items():
        bounds = INTEGER_ATTRIBUTES.get(name)
        if bounds is None:
            raise InvalidAttributeName(f"Unknown Attribute {name}.")
        number = _parse_int(value)
        if number is None or not bounds.low <= number <= bounds.high:
            raise InvalidAttributeValue(f"Invalid value for the parameter {name}.")
        normalised[name] = str(number)
    return normalised


def with_defaults(attributes: Mapping[str, str]) -> dict[str, str]:
    """Every implemented attribute, set or default."""
    merged = {name: str(bounds.default) for name, bounds in INTEGER_ATTRIBUTES.items()}
    merged.update(attributes)
    return merged


def _parse_int(value: str) -> int | None:
    text = value.strip()
    if not text or not (text.isdigit() or (text[0] in "+-" and text[1:].isdigit())):
        return None
    return int(text)
