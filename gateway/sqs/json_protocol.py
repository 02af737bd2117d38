"""The SQS JSON 1.0 protocol's requests: `X-Amz-Target: AmazonSQS.<Action>` and a JSON
object of the action's parameters.

The body's tokens are counted before it is parsed (gateway/sqs/limits.py): a parser
builds every value it reads, so a body of a million tiny values costs hundreds of
milliseconds to parse, and more to refuse, though no valid request has more than about
1,200 tokens. Counting takes a few passes of C code over the bytes (~10 ms for 15 MiB)
and no Python loop over them.
"""

from __future__ import annotations

from typing import Any

import orjson

from gateway.sqs.errors import SqsError
from gateway.sqs.limits import MAX_JSON_TOKENS

TARGET_PREFIX = "AmazonSQS."


def action(target: str) -> str:
    """The action an `X-Amz-Target` header names (InvalidAction for another target)."""
    if not target.startswith(TARGET_PREFIX):
        raise SqsError("InvalidAction", "Missing or invalid X-Amz-Target header.")
    return target.removeprefix(TARGET_PREFIX)


def parse(body: bytes) -> dict[str, Any]:
    """The request's parameters. SerializationException for a body that is not a JSON
    object in UTF-8, or that has more than MAX_JSON_TOKENS tokens."""
    if not body:
        return {}
    if count_tokens(body) > MAX_JSON_TOKENS:
        raise SqsError(
            "SerializationException",
            f"The request body has more than {MAX_JSON_TOKENS} JSON values, more than any "
            "action takes.",
        )
    try:
        params = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise SqsError("SerializationException", f"Malformed JSON request body: {exc}") from exc
    if not isinstance(params, dict):
        raise SqsError("SerializationException", "The request body must be a JSON object.")
    return params


def count_tokens(body: bytes) -> int:
    """How many strings, commas, and opened objects and arrays the body has: exact for a
    JSON document (tests/gateway/sqs/test_json_protocol.py); for a body that is not
    one, whatever it is, as the parser refuses that body anyway."""
    text = body
    if b"\\" in text:
        # Escapes out, read left to right as a parser does: a `\\` pair first, so that the
        # `\"` left is an escaped quote, not the end of a string.
        text = text.replace(b"\\\\", b"").replace(b'\\"', b"")
    quotes = text.count(b'"')
    if quotes > 2 * MAX_JSON_TOKENS:
        return quotes // 2
    # Between the quotes, in turn: structure, a string, structure, a string, ...
    structure = b"".join(text.split(b'"')[::2])
    return quotes // 2 + structure.count(b",") + structure.count(b"{") + structure.count(b"[")
