"""The bytes of a tail copy: record batches exactly as a segment's `.log` holds them
(storage_nodes/log/record_batch.py, docs/formats.md), one batch per copied append, its
base offset the offset the owner's log gave it, concatenated.

Unlike a segment's, the batches of a copy need not be dense nor in offset order: a
round of the copier ships the appends that were acknowledged meanwhile in the order
they finished, and an append the copier failed was never acknowledged, so its offsets
may be missing. Each batch carries its CRC32C: `decode` stops at the first batch that
is torn or corrupt (a follower killed mid-write), keeping everything before it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

from storage_nodes.log.errors import CorruptRecordError
from storage_nodes.log.record import Record, RecordIn
from storage_nodes.log.record_batch import check_crc, decode_batch, encode_batch, read_header

log = logging.getLogger(__name__)


def encode(base_offset: int, records: Sequence[RecordIn]) -> bytes:
    """One append's records as the batch the owner's log holds at `base_offset`."""
    batch = encode_batch(records)
    return batch.prefix(base_offset) + batch.covered


def check(data: bytes) -> tuple[int, int]:
    """The lowest base offset and the highest end offset of the batches in `data`;
    ValueError unless it is one or more whole batches with intact CRCs (what a follower
    checks before it writes a copy: the CRC only, not each record)."""
    if not data:
        raise ValueError("a copy holds at least one batch")
    low, high, position = 1 << 63, -1, 0
    while position < len(data):
        try:
            header = read_header(data, position)
            check_crc(data, position, header)
        except CorruptRecordError as exc:
            raise ValueError(f"a copy's batch at byte {position}: {exc}") from exc
        low, high = min(low, header.base_offset), max(high, header.next_offset)
        position += header.size
    return low, high


def intact_bytes(data: bytes) -> int:
    """How many bytes at the start of `data` are whole batches with intact CRCs."""
    position = 0
    while position < len(data):
        try:
            header = read_header(data, position)
            check_crc(data, position, header)
        except CorruptRecordError:
            break
        position += header.size
    return position


def decode(data: bytes, *, source: str) -> list[Record]:
    """The records of every whole, intact batch of `data`, in the order written; the
    rest (a torn or corrupt batch and what follows) is left out and logged."""
    records: list[Record] = []
    position = 0
    while position < len(data):
        try:
            header, batch = decode_batch(data, position)
        except CorruptRecordError as exc:
            log.warning(
                "%s: %s at byte %d; the %d bytes from there are left out",
                source, exc, position, len(data) - position,
            )  # fmt: skip
            break
        records.extend(batch)
        position += header.size
    return records


def in_offset_order(records: Iterable[Record]) -> list[Record]:
    """`records` sorted by offset, each offset once (copies may overlap: a round sent
    again to a new follower, or found both in an object and a follower's file)."""
    by_offset = {record.offset: record for record in records}
    return [by_offset[offset] for offset in sorted(by_offset)]
