"""The values a partition log stores and returns.

:class:`RecordIn` is what a producer appends (the log assigns the offset);
:class:`Record` is what a reader gets back: the same fields plus ``offset``. Both are
frozen msgspec Structs, built in C: every message sent is a RecordIn and every message
received a Record, and a frozen dataclass's constructor (even one written out with the
slots' setters) cost ten times as much, 0.64 against 0.06 us, a tenth of decoding a
record (docs/performance.md). They hold strings, numbers and attribute mappings of
those, so they can be in no reference cycle, and the collector does not track them. The
two attribute mappings are compared by ``==`` but left out of ``hash()`` (a dict is not
hashable), so equal records still hash equally.

``body_md5`` is the body's MD5 (hex) when the writer had it (the gateway computes it for
SQS's answer to a send), carried to the readers of the partition's tail cache
(``tail_cache.py``) so that a receive need not hash the body again. It is never stored on
disk: a record read from a segment has None. It is derived from the body, so it takes no
part in ``==`` or ``hash()``.

How these fields are laid out on disk is in ``record_batch.py`` and ``docs/formats.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from operator import attrgetter
from types import MappingProxyType

import msgspec

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


class _Value(msgspec.Struct, frozen=True, gc=False, eq=False):
    """What RecordIn and Record share: equal when of one class with equal fields but the
    body's MD5 (derived from the body), hashed without the attribute maps either."""

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        compared = _COMPARED[self.__class__]
        return bool(compared(self) == compared(other))

    def __hash__(self) -> int:
        return hash(_HASHED[self.__class__](self))


class RecordIn(_Value, frozen=True, gc=False, eq=False):
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
    attributes: Mapping[str, MessageAttribute] = NO_ATTRIBUTES
    system_attributes: Mapping[str, MessageAttribute] = NO_ATTRIBUTES
    body_md5: str | None = None


class Record(_Value, frozen=True, gc=False, eq=False):
    """One message as a reader gets it: :class:`RecordIn`'s fields plus its ``offset``."""

    offset: int
    message_id: str
    timestamp_ms: int
    body: bytes
    key: bytes | None = None
    group_id: str | None = None
    dedup_id: str | None = None
    delay_ms: int = 0
    attributes: Mapping[str, MessageAttribute] = NO_ATTRIBUTES
    system_attributes: Mapping[str, MessageAttribute] = NO_ATTRIBUTES
    body_md5: str | None = None


def _getter(cls: type[_Value], left_out: tuple[str, ...]) -> Callable[[_Value], object]:
    """The tuple of `cls`'s fields but those `left_out`, in one C call."""
    return attrgetter(*(name for name in cls.__struct_fields__ if name not in left_out))


_COMPARED: dict[type[_Value], Callable[[_Value], object]] = {
    cls: _getter(cls, ("body_md5",)) for cls in (RecordIn, Record)
}
_HASHED: dict[type[_Value], Callable[[_Value], object]] = {
    cls: _getter(cls, ("body_md5", "attributes", "system_attributes")) for cls in (RecordIn, Record)
}
