"""The values a partition log stores and returns.

:class:`RecordIn` is what a producer appends (the log assigns the offset);
:class:`Record` is what a reader gets back: the same fields plus ``offset``. Both are
frozen and slotted. The two attribute mappings are compared by ``==`` but left out of
``hash()`` (a dict is not hashable), so equal records still hash equally.

How these fields are laid out on disk is in ``record_batch.py`` and ``docs/formats.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["MAX_DELAY_MS", "MessageAttribute", "Record", "RecordIn"]

#: Largest delivery delay a record can carry (a signed 32-bit field on disk).
MAX_DELAY_MS = 2**31 - 1


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


@dataclass(frozen=True, slots=True)
class RecordIn:
    """One message as a producer appends it.

    ``timestamp_ms`` is stored as given (the log never rewrites it); the time index keeps
    the running maximum so that timestamp lookups stay monotonic. ``delay_ms`` must be in
    ``0..MAX_DELAY_MS``.
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


@dataclass(frozen=True, slots=True)
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
