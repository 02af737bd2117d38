"""The values a partition log stores and returns.

:class:`RecordIn` is what a producer appends (the log assigns the offset);
:class:`Record` is what a reader gets back: the same fields plus ``offset``. Both are
frozen and slotted. The two attribute mappings are compared by ``==`` but left out of
``hash()`` (a dict is not hashable), so equal records still hash equally.

``body_md5`` is the body's MD5 (hex) when the writer had it (the gateway computes it for
SQS's answer to a send), carried to the readers of the partition's tail cache
(``tail_cache.py``) so that a receive need not hash the body again. It is never stored on
disk: a record read from a segment has None. It is derived from the body, so it takes no
part in ``==`` or ``hash()``.

How these fields are laid out on disk is in ``record_batch.py`` and ``docs/formats.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = ["MAX_DELAY_MS", "NO_ATTRIBUTES", "MessageAttribute", "Record", "RecordIn"]

#: Largest delivery delay a record can carry (a signed 32-bit field on disk).
MAX_DELAY_MS = 2**31 - 1

# The attributes of a record that has none: one shared, read-only empty mapping.
NO_ATTRIBUTES: Mapping[str, MessageAttribute] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class MessageAttribute:
    """An SQS ``MessageAttributeValue``.

    ``data_type`` is ``"String"``, ``"Number"``, ``"Binary"``, optionally with a
    ``".custom"`` suffix. The log stores whichever of the two values is set (both, or
    neither, round-trip unchanged); checking SQS's rules is the gateway's job.
    """

    data_type: str
    string_value: str | None = None
    binary_value: bytes | None = None


@dataclass(frozen=True, slots=True, init=False)
class RecordIn:
    """One message as a producer appends it.

    ``timestamp_ms`` is stored as given (the log never rewrites it); the time index keeps
    the running maximum so that timestamp lookups stay monotonic. ``delay_ms`` must be in
    ``0..MAX_DELAY_MS``. Absent attributes are an empty read-only mapping.
    """

    message_id: str
    timestamp_ms: int
    body: bytes
    key: bytes | None = None
    group_id: str | None = None
    dedup_id: str | None = None
    delay_ms: int = 0
    attributes: Mapping[str, MessageAttribute] = field(default_factory=dict, hash=False)
    system_attributes: Mapping[str, MessageAttribute] = field(default_factory=dict, hash=False)
    body_md5: str | None = field(default=None, compare=False)

    def __init__(  # noqa: PLR0917 (positional like the generated one it replaces)
        self,
        message_id: str,
        timestamp_ms: int,
        body: bytes,
        key: bytes | None = None,
        group_id: str | None = None,
        dedup_id: str | None = None,
        delay_ms: int = 0,
        attributes: Mapping[str, MessageAttribute] = NO_ATTRIBUTES,
        system_attributes: Mapping[str, MessageAttribute] = NO_ATTRIBUTES,
        body_md5: str | None = None,
    ) -> None:
        # Written out rather than generated: a frozen dataclass's __init__ sets each field
        # through object.__setattr__, twice as slow as the slots' own setters, and every
        # message a producer sends is built here.
        _set_message_id(self, message_id)
        _set_timestamp_ms(self, timestamp_ms)
        _set_body(self, body)
        _set_key(self, key)
        _set_group_id(self, group_id)
        _set_dedup_id(self, dedup_id)
        _set_delay_ms(self, delay_ms)
        _set_attributes(self, attributes)
        _set_system_attributes(self, system_attributes)
        _set_body_md5(self, body_md5)


def _slot_setter(cls: type, name: str) -> Callable[[Any, Any], None]:
    setter: Callable[[Any, Any], None] = vars(cls)[name].__set__
    return setter


_set_message_id = _slot_setter(RecordIn, "message_id")
_set_timestamp_ms = _slot_setter(RecordIn, "timestamp_ms")
_set_body = _slot_setter(RecordIn, "body")
_set_key = _slot_setter(RecordIn, "key")
_set_group_id = _slot_setter(RecordIn, "group_id")
_set_dedup_id = _slot_setter(RecordIn, "dedup_id")
_set_delay_ms = _slot_setter(RecordIn, "delay_ms")
_set_attributes = _slot_setter(RecordIn, "attributes")
_set_system_attributes = _slot_setter(RecordIn, "system_attributes")
_set_body_md5 = _slot_setter(RecordIn, "body_md5")


@dataclass(frozen=True, slots=True, init=False)
class Record:
    """One message as a reader gets it: :class:`RecordIn`'s fields plus its ``offset``."""

    offset: int
    message_id: str
    timestamp_ms: int
    body: bytes
    key: bytes | None = None
    group_id: str | None = None
    dedup_id: str | None = None
    delay_ms: int = 0
    attributes: Mapping[str, MessageAttribute] = field(default_factory=dict, hash=False)
    system_attributes: Mapping[str, MessageAttribute] = field(default_factory=dict, hash=False)
    body_md5: str | None = field(default=None, compare=False)

    def __init__(  # noqa: PLR0917 (positional like the generated one it replaces)
        self,
        offset: int,
        message_id: str,
        timestamp_ms: int,
        body: bytes,
        key: bytes | None = None,
        group_id: str | None = None,
        dedup_id: str | None = None,
        delay_ms: int = 0,
        attributes: Mapping[str, MessageAttribute] = NO_ATTRIBUTES,
        system_attributes: Mapping[str, MessageAttribute] = NO_ATTRIBUTES,
        body_md5: str | None = None,
    ) -> None:
        # Written out for the reason given in RecordIn: every record a consumer receives
        # is built here, and the generated one was half of decoding a batch.
        _set_record_offset(self, offset)
        _set_record_message_id(self, message_id)
        _set_record_timestamp_ms(self, timestamp_ms)
        _set_record_body(self, body)
        _set_record_key(self, key)
        _set_record_group_id(self, group_id)
        _set_record_dedup_id(self, dedup_id)
        _set_record_delay_ms(self, delay_ms)
        _set_record_attributes(self, attributes)
        _set_record_system_attributes(self, system_attributes)
        _set_record_body_md5(self, body_md5)


_set_record_offset = _slot_setter(Record, "offset")
_set_record_message_id = _slot_setter(Record, "message_id")
_set_record_timestamp_ms = _slot_setter(Record, "timestamp_ms")
_set_record_body = _slot_setter(Record, "body")
_set_record_key = _slot_setter(Record, "key")
_set_record_group_id = _slot_setter(Record, "group_id")
_set_record_dedup_id = _slot_setter(Record, "dedup_id")
_set_record_delay_ms = _slot_setter(Record, "delay_ms")
_set_record_attributes = _slot_setter(Record, "attributes")
_set_record_system_attributes = _slot_setter(Record, "system_attributes")
_set_record_body_md5 = _slot_setter(Record, "body_md5")
