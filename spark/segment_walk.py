"""Finding the records in a slice of a segment: the walk over its batches.

A `.log` is a concatenation of batches, each a 39-byte header and records of variable
length (docs/formats.md; storage_nodes/log/record_batch.py writes them). Finding where
each record starts is inherently sequential, and is the only per-record Python of the
reader; it reads one length per record, and none when a batch holds one record.

Most archives are written by producers sending messages of one size, so their batches
repeat: from a batch, the walk guesses a run of batches of the same size and record
count, and checks all their headers at once with numpy (base offsets dense, lengths,
format version, flags); the records of such batches are assumed to be equally long. A
run that fails its checks is walked one batch at a time (and runs are tried less often
after each failure); a wrong guess about record lengths is caught when the decoder
checks the record headers (`WrongGuess`), and the walk is then done again without
guessing. Every batch's CRC32C is checked either way, before any of its records is used.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

import google_crc32c
import numpy as np

from spark.errors import CorruptSegment
from storage_nodes.log.record_batch import BATCH_HEADER, MAGIC

# A walk stops after about this many bytes of the slice (or records): one Arrow batch.
BATCH_TARGET_BYTES = 4 * 1024 * 1024
BATCH_MAX_RECORDS = 32 * 1024

_CRC_START = 17  # the CRC covers the batch from its attributes field on
_LENGTH_END = 12  # base_offset and batch_length: what batch_length does not count
# BATCH_HEADER as a numpy record, to check a run of batch headers at once.
_BATCH = np.dtype(
    [
        ("base_offset", ">i8"),
        ("batch_length", ">i4"),
        ("magic", "i1"),
        ("crc", ">u4"),
        ("attributes", ">i2"),
        ("record_count", ">i4"),
        ("first_timestamp_ms", ">i8"),
        ("max_timestamp_ms", ">i8"),
    ]
)
assert _BATCH.itemsize == BATCH_HEADER.size == 39
# A run of equal batches is used from this length on; after a failed try, batches are
# walked one by one for a while (doubling, up to the maximum) before the next.
_MIN_RUN = 4
_MIN_BACKOFF = 64
_MAX_BACKOFF = 4096
_unpack_batch = BATCH_HEADER.unpack_from
_unpack_length = struct.Struct(">i").unpack_from


# positions, base offsets, first timestamps, record counts, ends: arrays or lists.
Piece = tuple[Any, Any, Any, Any, Any]


class WrongGuess(Exception):
    """Records were assumed to be of equal size and are not: walk them one by one."""


@dataclass(slots=True)
class Walk:
    """Consecutive whole batches: where each record starts, and per batch its base
    offset, first timestamp, record count and end. Kept as pieces (numpy arrays, or lists
    from the one-by-one walk) joined by `arrays()`."""

    pieces: list[Piece]
    guessed: bool = False
    records: int = 0
    end_position: int = 0
    end_offset: int = 0

    def arrays(self) -> tuple[np.ndarray[Any, Any], ...]:
        return tuple(
            np.concatenate([np.asarray(piece[i], np.int64) for piece in self.pieces])
            if self.pieces
            else np.zeros(0, np.int64)
            for i in range(5)
        )


class SegmentWalker:
    """Walks whole batches of one slice's bytes, checking each batch's header and CRC32C.

    Not thread-safe; one per slice. `where` and `start_position` (the slice's position
    in its object) make error messages name the object and the byte."""

    def __init__(self, data: bytes, start_position: int, where: str) -> None:
        self.data = data
        self.start_position = start_position
        self.where = where
        self.windows = ByteWindows(data)
        # Batches to walk one by one before trying a run of equal batches (again).
        self._patience, self._backoff = 0, _MIN_BACKOFF

    def corrupt(self, position: int, why: str) -> CorruptSegment:
        at = self.start_position + position
        return CorruptSegment(f"{self.where}: corrupt batch at byte {at}: {why}")

    def walk(self, position: int, expected_offset: int, *, guess: bool) -> Walk:
        """Batches from `position` until about BATCH_TARGET_BYTES, CRCs checked.

        With `guess`, a run of batches of one size and record count (what one producer
        sending messages of one size writes) is found with numpy, and the records of a
        batch whose bytes divide evenly are assumed to be equal: whoever reads the record
        headers must check them and raise WrongGuess if that was wrong (then walk again
        without guessing).
        """
        stop = min(position + BATCH_TARGET_BYTES, len(self.data))
        walk = Walk([], guessed=guess)
        while position < stop and walk.records < BATCH_MAX_RECORDS:
            if guess and self._patience <= 0:
                run = self._run(position, expected_offset, stop, BATCH_MAX_RECORDS - walk.records)
                if run is not None:
                    walk.pieces.append(run)
                    walk.records += len(run[0])
                    position, expected_offset = int(run[4][-1]), int(run[1][-1] + run[3][-1])
                    continue
            position, expected_offset = self._one_by_one(
                walk, position, expected_offset, stop, guess
            )
        walk.end_position, walk.end_offset = position, expected_offset
        return walk

    def _one_by_one(
        self, walk: Walk, position: int, expected_offset: int, stop: int, guess: bool
    ) -> tuple[int, int]:
        """Walks batches one at a time, for at most the current patience (when guessing)."""
        data = self.data
        positions: list[int] = []
        bases: list[int] = []
        first_timestamps: list[int] = []
        counts: list[int] = []
        ends: list[int] = []
        append = positions.append
        budget = max(self._patience, 1) if guess else BATCH_MAX_RECORDS
        while position < stop and walk.records + len(positions) < BATCH_MAX_RECORDS and budget > 0:
            budget -= 1
            base, count, first_ts, end = self._header(position, expected_offset)
            record = position + BATCH_HEADER.size
            if count == 1:
                append(record)
            else:
                stride, rest = divmod(end - record, count)
                if guess and not rest and _unpack_length(data, record)[0] + 4 == stride:
                    positions += range(record, end, stride)
                else:
                    try:
                        for _ in range(count):
                            append(record)
                            record += 4 + _unpack_length(data, record)[0]
                    except struct.error:
                        raise self.corrupt(position, "records run past the data") from None
                    if record != end:
                        raise self.corrupt(position, "records do not tile the batch")
            bases.append(base)
            first_timestamps.append(first_ts)
            counts.append(count)
            ends.append(end)
            expected_offset = base + count
            position = end
        if guess:
            self._patience = max(budget, 0)  # at 0: try a run next
        walk.pieces.append((positions, bases, first_timestamps, counts, ends))
        walk.records += len(positions)
        return position, expected_offset

    def _header(self, position: int, expected_offset: int) -> tuple[int, int, int, int]:
        """(base offset, record count, first timestamp, end) of the batch at `position`,
        after checking its header and CRC."""
        data, size = self.data, len(self.data)
        if size - position < BATCH_HEADER.size:
            raise self.corrupt(position, f"{size - position} bytes left, a header is 39")
        base, length, magic, crc, flags, count, first_ts, _ = _unpack_batch(data, position)
        end = position + _LENGTH_END + length
        if base != expected_offset:
            raise self.corrupt(position, f"base offset {base}, expected {expected_offset}")
        if magic != MAGIC:
            raise self.corrupt(position, f"format version (magic) {magic}; this reader knows 1")
        if flags != 0:
            raise self.corrupt(position, f"unknown batch attributes {flags:#x}")
        if end > size or count < 1 or length < BATCH_HEADER.size - _LENGTH_END:
            raise self.corrupt(position, f"impossible batch: {length} bytes, {count} records")
        if google_crc32c.value(data[position + _CRC_START : end]) != crc:
            raise self.corrupt(position, "CRC32C mismatch")
        return base, count, first_ts, end

    def _run(
        self, position: int, expected_offset: int, stop: int, max_records: int
    ) -> Piece | None:
        """The batches from `position` that repeat the first one's size and record count
        (at least two), headers checked with numpy and CRCs one by one; None if fewer."""
        first = BATCH_HEADER.size
        if len(self.data) - position < first:
            return None
        _, length, _, _, _, count, _, _ = _unpack_batch(self.data, position)
        size = _LENGTH_END + length
        if size < first or count < 1:
            self._give_up()  # not a batch: the walk one by one says what is wrong
            return None
        guesses = min((stop - position) // size, max_records // count)
        if guesses < _MIN_RUN:  # the end of this walk, not a sign against runs
            return None
        starts = position + size * np.arange(guesses, dtype=np.int64)
        headers = self.windows.gather(starts, BATCH_HEADER.size).view(_BATCH)
        ok = (
            (headers["base_offset"] == expected_offset + count * np.arange(guesses))
            & (headers["batch_length"] == length)
            & (headers["magic"] == MAGIC)
            & (headers["attributes"] == 0)
            & (headers["record_count"] == count)
        )
        accepted = int(np.argmin(ok)) if not ok.all() else guesses
        if accepted < _MIN_RUN:
            self._give_up()
            return None
        self._backoff = _MIN_BACKOFF
        starts, headers = starts[:accepted], headers[:accepted]
        data, value = self.data, google_crc32c.value
        for start, crc in zip(starts.tolist(), headers["crc"].tolist(), strict=True):
            if value(data[start + _CRC_START : start + size]) != crc:
                raise self.corrupt(start, "CRC32C mismatch")
        records = starts + first
        if count > 1:
            stride, rest = divmod(size - first, count)
            if rest:  # records of several sizes: not a run this walk can take
                self._give_up()
                return None
            records = (records[:, None] + stride * np.arange(count)).ravel()
        return (
            records,
            headers["base_offset"].astype(np.int64),
            headers["first_timestamp_ms"].astype(np.int64),
            np.full(accepted, count, np.int64),
            starts + size,
        )

    def _give_up(self) -> None:
        """No run here: walk one by one for a while, longer after each failed try."""
        self._patience = self._backoff
        self._backoff = min(self._backoff * 2, _MAX_BACKOFF)


class ByteWindows:
    """Fixed-width reads at many positions of one buffer, in C.

    `gather(starts, width)` returns the `width` bytes at each start as one `V<width>`
    value; each is an element of an overlapping view of the data (element i is bytes
    i .. i + width - 1), so the gather copies `width` bytes per value rather than indexing
    every byte (an index array of `width` int64s per value was 18x slower)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._views: dict[int, np.ndarray[Any, Any]] = {}

    def gather(self, starts: np.ndarray[Any, Any], width: int) -> np.ndarray[Any, Any]:
        """The `width` bytes at each of `starts`; bytes past the end read as zeros."""
        data = self.data
        last = len(data) - width  # the last start whose bytes are all in the data
        values: np.ndarray[Any, Any]
        if last < 0 or len(starts) == 0:
            values = _windows(data.ljust(len(data) + width, b"\0"), width)[starts]
            return values
        windows = self._views.get(width)
        if windows is None:
            windows = self._views[width] = _windows(data, width)
        if int(starts.max()) <= last:
            values = windows[starts]
            return values
        values = windows[np.minimum(starts, last)]
        near_end = starts > last
        tail = _windows(data[last:] + bytes(width), width)
        values[near_end] = tail[starts[near_end] - last]
        return values


def _windows(data: bytes, width: int) -> np.ndarray[Any, Any]:
    """Every run of `width` bytes of `data`: element i is bytes i .. i + width - 1."""
    return np.ndarray((len(data) - width + 1,), f"V{width}", buffer=data, strides=(1,))
