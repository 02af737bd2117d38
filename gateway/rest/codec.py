"""JSON in and out with msgspec: request bodies and query strings decoded into the
operation's Structs (every constraint checked there), responses encoded from them.

A decode failure is a 400 naming the field (`$.messages[3].delay_seconds`): a missing
required field is MissingParameter, anything else InvalidParameterValue, and a body that
is not JSON at all SerializationException, as on the SQS API.
"""

from __future__ import annotations

from typing import Any

import msgspec
from starlette.datastructures import QueryParams

from gateway.rest.errors import RestError

_encoder = msgspec.json.Encoder()
_MISSING = "Object missing required field"


def decode_body(body: bytes, shape: type[Any], required: bool) -> Any:
    """The body decoded into `shape`; an absent body is `{}` unless one is required."""
    if not body.strip():
        if required:
            raise RestError("MissingParameter", "The request needs a JSON body.")
        body = b"{}"
    try:
        return msgspec.json.decode(body, type=shape)
    except msgspec.ValidationError as exc:
        raise _invalid(exc) from exc
    except msgspec.DecodeError as exc:
        raise RestError("SerializationException", f"Malformed JSON request body: {exc}") from exc


def decode_query(query: QueryParams, shape: type[Any]) -> Any:
    """The query string decoded into `shape` (numbers from their text)."""
    values: dict[str, str] = {}
    for name, value in query.multi_items():
        if name in values:
            raise RestError(
                "InvalidParameterValue", f"The query parameter {name} is given more than once."
            )
        values[name] = value
    try:
        return msgspec.convert(values, type=shape, strict=False)
    except msgspec.ValidationError as exc:
        raise _invalid(exc, "query parameter") from exc


def encode(value: Any) -> bytes:
    return _encoder.encode(value)


def _invalid(exc: msgspec.ValidationError, where: str = "request body") -> RestError:
    message = str(exc)
    if where != "request body":
        # msgspec names fields as JSON paths; a query string has no nesting.
        message = message.replace("`$.", "`").replace(" - at `", f" - {where} `")
        message = message.replace("Object missing required field", f"Missing {where}")
        message = message.replace("Object contains unknown field", f"Unknown {where}")
    code = "MissingParameter" if str(exc).startswith(_MISSING) else "InvalidParameterValue"
    return RestError(code, f"Invalid {where}: {message}")
