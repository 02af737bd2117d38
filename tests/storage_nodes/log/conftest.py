"""Helpers for the partition log tests: records with recognisable content, a fake clock."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from storage_nodes.log.record import MessageAttribute, Record, RecordIn

BASE_TS = 1_700_000_000_000


def body_for(message_id: str, size: int) -> bytes:
    """Deterministic bytes derived from the message id, so any record can be checked alone."""
    seed = hashlib.sha256(message_id.encode()).digest()
    return (seed * (size // len(seed) + 1))[:size]


def make_record(n: int, *, ts: int | None = None, size: int = 100, rich: bool = False) -> RecordIn:
    """Record number ``n``; ``rich`` fills every optional field."""
    message_id = f"msg-{n:08d}"
    timestamp = BASE_TS + n if ts is None else ts
    if not rich:
        return RecordIn(message_id, timestamp, body_for(message_id, size))
    return RecordIn(
        message_id,
        timestamp,
        body_for(message_id, size),
        key=f"key-{n % 7}".encode(),
        group_id=f"group-{n % 3}",
        dedup_id=f"dedup-{n}",
        delay_ms=n % 1000,
        attributes={
            "n": MessageAttribute("Number", str(n)),
            "b": MessageAttribute("Binary", None, b"\x00\xff"),
        },
        system_attributes={"AWSTraceHeader": MessageAttribute("String", f"Root=1-{n:x}")},
    )


def as_stored(record: RecordIn, offset: int) -> Record:
    """What a reader should get back for ``record`` stored at ``offset``."""
    return Record(
        offset,
        record.message_id,
        record.timestamp_ms,
        record.body,
        record.key,
        record.group_id,
        record.dedup_id,
        record.delay_ms,
        dict(record.attributes),
        dict(record.system_attributes),
    )


@dataclass
class FakeClock:
    """A clock tests move by hand (never by sleeping)."""

    now: int = BASE_TS

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        self.now += ms
