"""Reading typed parameters out of a JSON 1.0 request body, with SQS's error wording."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gateway.sqs.errors import invalid_parameter, missing_parameter

Params = Mapping[str, Any]


def required_str(params: Params, name: str) -> str:
    value = params.get(name)
    if value is None or value == "":
        raise missing_parameter(name)
    if not isinstance(value, str):
        raise invalid_parameter(f"Value for parameter {name} must be a string.")
    return value


def optional_str(params: Params, name: str) -> str | None:
    value = params.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise invalid_parameter(f"Value for parameter {name} must be a string.")
    return value


def optional_int(
    params: Params, name: str, low: int, high: int, reason: str | None = None
) -> int | None:
    """An integer from `low` to `high`, or None; refused with SQS's usual reason unless
    the parameter has its own (`reason`)."""
    value = params.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        reason = reason or f"Must be between {low} and {high}, if provided."
        raise invalid_parameter(f"Value {value} for parameter {name} is invalid. Reason: {reason}")
    return value


def string_list(params: Params, name: str) -> list[str]:
    value = params.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise invalid_parameter(f"Value for parameter {name} must be a list of strings.")
    return value


def string_map(params: Params, name: str) -> dict[str, str]:
    value = params.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise invalid_parameter(f"Value for parameter {name} must be a map of strings.")
    return value


def object_map(params: Params, name: str) -> dict[str, Mapping[str, Any]]:
    value = params.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, dict) for k, v in value.items()
    ):
        raise invalid_parameter(f"Value for parameter {name} must be a map of objects.")
    return value
