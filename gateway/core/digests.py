"""The MD5 digests SQS returns, computed exactly as SQS (and the SDKs that check them) do.

Message attributes are digested in name order, each as: name, data type, a transport
byte (1 for String and Number, 2 for Binary), then the value; every string and byte value
is preceded by its length as a 4-byte big-endian integer.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Mapping

from gateway.core.messages import MessageAttribute, Record, RecordIn

_STRING_TRANSPORT = b"\x01"
_BINARY_TRANSPORT = b"\x02"


def md5_hex(data: bytes) -> str:
    return hashlib.md5(data, usedforsecurity=False).hexdigest()


def md5_of_body(record: Record | RecordIn) -> str:
    """The body's MD5 (hex): the one the sender computed when the record carries it (a
    record from the log's tail cache, storage_nodes/log/tail_cache.py), else hashed."""
    return record.body_md5 or md5_hex(record.body)


def md5_of_attributes(attributes: Mapping[str, MessageAttribute]) -> str:
    digest = hashlib.md5(usedforsecurity=False)
    for name in sorted(attributes):
        attribute = attributes[name]
        digest.update(_length_prefixed(name.encode()))
        digest.update(_length_prefixed(attribute.data_type.encode()))
        if attribute.binary_value is not None:
            digest.update(_BINARY_TRANSPORT + _length_prefixed(attribute.binary_value))
        else:
            value = (attribute.string_value or "").encode()
            digest.update(_STRING_TRANSPORT + _length_prefixed(value))
    return digest.hexdigest()


def _length_prefixed(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data
