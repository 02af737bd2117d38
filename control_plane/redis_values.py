"""Narrowing of redis-py's `bytes | str` replies (we never set decode_responses)."""

from __future__ import annotations


def as_text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def as_bytes(value: bytes | str) -> bytes:
    return value if isinstance(value, bytes) else value.encode()
