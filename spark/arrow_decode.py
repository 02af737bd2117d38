"""Segment bytes -> Arrow record batches in the reader's schema (spark/schema.py).

The bytes are the `.log` format of docs/formats.md (storage_nodes/log/record_batch.py
writes them). Records have variable length, so finding where each one starts is a walk;
that walk is the only per-record Python here, and it reads one length per record (none
when a batch holds one record). Everything else is done on whole columns with numpy:
the 38-byte record headers are gathered into one structured array and checked at once
(offset deltas, lengths adding up, records tiling their batch); the string and binary
columns are built as Arrow *views* into the fetched bytes (length, prefix, position:
no per-value copy in Python) and cast to Spark's plain `string` / `binary` in C++,
which also validates UTF-8. Only attributes are decoded per value, and only for the
records that have some.

Every batch's CRC32C is checked before any of its records is used; any mismatch or
structural inconsistency raises `CorruptSegment` naming the object and byte position,
and nothing of a corrupt batch is returned.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import google_crc32c
import numpy as np
import pyarrow as pa

from spark.archive_reader import SegmentSlice
from spark.errors import CorruptSegment
from spark.schema import ARROW_ATTRIBUTE_VALUE, ARROW_ATTRIBUTES, ARROW_SCHEMA, ARROW_TIMESTAMP
from storage_nodes.log.record_batch import ATTRIBUTE_HEADER, BATCH_HEADER, MAGIC, RECORD_HEADER

# Arrow batches handed to Spark close at this many bytes of segment (or records): large
# enough that per-batch costs vanish, small enough to stay in the CPU's caches.
BATCH_TARGET_BYTES = 4 * 1024 * 1024
BATCH_MAX_RECORDS = 32 * 1024

# RECORD_HEADER (record_batch.py) as a numpy record, field for field.
_RECORD = np.dtype(
    [
        ("record_length", ">i4"),
        ("offset_delta", ">i4"),
        ("timestamp_delta", ">i8"),
        ("delay_ms", ">i4"),
        ("message_id_length", ">u2"),
        ("key_length", ">i4"),
        ("group_id_length", ">i2"),
        ("dedup_id_length", ">i2"),
        ("attribute_count", ">u2"),
        ("system_attribute_count", ">u2"),
        ("body_length", ">i4"),
    ]
)
assert _RECORD.itemsize == RECORD_HEADER.size == 38
_INLINE_BYTES = np.arange(12, dtype=np.int64)  # an Arrow view holds values <= 12 bytes inline
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


@dataclass(frozen=True, slots=True)
class StreamColumns:
    """The columns that are the same for every record of a slice."""

    account_id: str
    name: str
    partition: int


def decode_slice(
    data: bytes,
    segment: SegmentSlice,
    columns: StreamColumns,
    where: str,
    schema: pa.Schema = ARROW_SCHEMA,
) -> Iterator[pa.RecordBatch]:
    """The records of `data` (the slice's bytes) that `segment.rows` wants, as batches
    in `schema` (ARROW_SCHEMA or some of its columns), in offset order. `where` names
    the object in errors."""
    decoder = _Decoder(data, segment, columns, schema, where)
    position, offset = 0, segment.first_offset
    while position < len(data):
        try:
            walk = decoder.walk(position, offset, guess=True)
            batch = decoder.columns(walk)
        except _WrongGuess:
            walk = decoder.walk(position, offset, guess=False)
            batch = decoder.columns(walk)
        if batch.num_rows:
            yield batch
        position, offset = walk.end_position, walk.end_offset
    if offset != segment.end_offset:
        raise CorruptSegment(
            f"{where}: bytes {segment.start_position}..{segment.end_position} hold offsets "
            f"{segment.first_offset}..{offset}, the manifest says ..{segment.end_offset}"
        )


# positions, base offsets, first timestamps, record counts, ends: arrays or lists.
_Piece = tuple[Any, Any, Any, Any, Any]


class _WrongGuess(Exception):
    """Records were assumed to be of equal size and are not: walk them one by one."""


@dataclass(slots=True)
class _Walk:
    """Consecutive whole batches: where each record starts, and per batch its base
    offset, first timestamp, record count and end. Kept as pieces (numpy arrays, or lists
    from the one-by-one walk) joined by `arrays()`."""

    pieces: list[_Piece]
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


class _Decoder:
    def __init__(
        self,
        data: bytes,
        segment: SegmentSlice,
        columns: StreamColumns,
        schema: pa.Schema,
        where: str,
    ) -> None:
        self.data = data
        self.schema = schema
        self.array = np.frombuffer(data, np.uint8)
        self.buffer = pa.py_buffer(data)
        self._windows: dict[int, np.ndarray[Any, Any]] = {}
        self.segment = segment
        self.stream = columns
        self.where = where
        # Batches to walk one by one before trying a run of equal batches (again).
        self._patience, self._backoff = 0, _MIN_BACKOFF

    def corrupt(self, position: int, why: str) -> CorruptSegment:
        at = self.segment.start_position + position
        return CorruptSegment(f"{self.where}: corrupt batch at byte {at}: {why}")

    def walk(self, position: int, expected_offset: int, *, guess: bool) -> _Walk:
        """Batches from `position` until about BATCH_TARGET_BYTES, CRCs checked.

        With `guess`, a run of batches of one size and record count (what one producer
        sending messages of one size writes) is found with numpy, and the records of a
        batch whose bytes divide evenly are assumed to be equal: `columns()` checks every
        record header and raises _WrongGuess if that was wrong.
        """
        stop = min(position + BATCH_TARGET_BYTES, len(self.data))
        walk = _Walk([], guessed=guess)
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
        self, walk: _Walk, position: int, expected_offset: int, stop: int, guess: bool
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
    ) -> _Piece | None:
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
        headers = self._gather(starts, BATCH_HEADER.size).view(_BATCH)
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

    def columns(self, walk: _Walk) -> pa.RecordBatch:
        """The walked records as one Arrow batch, after checking their headers."""
        starts, bases, first_timestamps, counts, ends = walk.arrays()
        if len(starts) and int(starts[-1]) + RECORD_HEADER.size > len(self.data):
            raise self.corrupt(int(starts[-1]), "record header runs past the data")
        header = self._gather(starts, RECORD_HEADER.size).view(_RECORD)
        firsts = np.cumsum(counts) - counts  # index of each batch's first record
        delta = np.arange(len(starts), dtype=np.int64) - np.repeat(firsts, counts)
        offsets = np.repeat(bases, counts) + delta
        timestamps = np.repeat(first_timestamps, counts) + header["timestamp_delta"]
        fields = self._check(
            walk, starts=starts, header=header, delta=delta, counts=counts, batch_ends=ends
        )
        keep = self._wanted(offsets, timestamps)
        if keep is not None:
            header, offsets, timestamps = header[keep], offsets[keep], timestamps[keep]
            fields = {name: column[keep] for name, column in fields.items()}
        n = len(offsets)
        build: dict[str, Callable[[], pa.Array]] = {
            "account": lambda: pa.repeat(pa.scalar(self.stream.account_id, pa.string()), n),
            "queue": lambda: pa.repeat(pa.scalar(self.stream.name, pa.string()), n),
            "partition": lambda: pa.array(np.full(n, self.stream.partition, np.int32)),
            "offset": lambda: pa.array(offsets),
            "timestamp": lambda: pa.array(timestamps * 1000, ARROW_TIMESTAMP),
            "message_id": lambda: self._strings(fields["message_id"], header["message_id_length"]),
            "group_id": lambda: self._strings(fields["group_id"], header["group_id_length"]),
            "deduplication_id": lambda: self._strings(
                fields["dedup_id"], header["dedup_id_length"]
            ),
            "attributes": lambda: self._attributes(header, fields["attributes"], fields["body"]),
            "body": lambda: self._views(fields["body"], header["body_length"]).cast(pa.binary()),
        }
        arrays = []
        for field in self.schema:
            array = build[field.name]()
            arrays.append(array if array.type == field.type else array.cast(field.type))
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)

    def _check(
        self,
        walk: _Walk,
        *,
        starts: np.ndarray[Any, Any],
        header: np.ndarray[Any, Any],
        delta: np.ndarray[Any, Any],
        counts: np.ndarray[Any, Any],
        batch_ends: np.ndarray[Any, Any],
    ) -> dict[str, np.ndarray[Any, Any]]:
        """Every record's fields lie inside it and it ends where the next one starts;
        returns where the variable fields start."""
        ends = starts + 4 + header["record_length"]
        expected_ends = np.empty_like(ends)
        expected_ends[:-1] = starts[1:]
        expected_ends[np.cumsum(counts) - 1] = batch_ends  # a batch's last record ends it
        key, group, dedup = (
            header[f].astype(np.int64) for f in ("key_length", "group_id_length", "dedup_id_length")
        )
        message_id = starts + RECORD_HEADER.size
        group_id = message_id + header["message_id_length"] + np.maximum(key, 0)
        dedup_id = group_id + np.maximum(group, 0)
        attributes = dedup_id + np.maximum(dedup, 0)
        body = ends - header["body_length"]
        plain = (header["attribute_count"] == 0) & (header["system_attribute_count"] == 0)
        bad = (
            (header["offset_delta"] != delta)
            | (ends != expected_ends)
            | (key < -1) | (group < -1) | (dedup < -1)
            | (header["body_length"] < 0)
            | (body < attributes)
            | (plain & (body != attributes))
        )  # fmt: skip
        if bad.any():
            if walk.guessed:
                raise _WrongGuess
            first = int(np.flatnonzero(bad)[0])
            raise self.corrupt(
                int(starts[first]), f"record at offset delta {delta[first]} is malformed"
            )
        return {
            "message_id": message_id,
            "group_id": group_id,
            "dedup_id": dedup_id,
            "attributes": attributes,
            "body": body,
        }

    def _wanted(
        self, offsets: np.ndarray[Any, Any], timestamps: np.ndarray[Any, Any]
    ) -> np.ndarray[Any, Any] | None:
        """The rows the slice's bounds keep, or None for all of them."""
        rows, segment = self.segment.rows, self.segment
        masks = []
        if rows.start_offset > segment.first_offset:
            masks.append(offsets >= rows.start_offset)
        if rows.end_offset is not None and rows.end_offset < segment.end_offset:
            masks.append(offsets < rows.end_offset)
        if rows.start_timestamp_ms is not None:
            masks.append(timestamps >= rows.start_timestamp_ms)
        if rows.end_timestamp_ms is not None:
            masks.append(timestamps < rows.end_timestamp_ms)
        if not masks:
            return None
        keep: np.ndarray[Any, Any] = np.logical_and.reduce(masks)
        return keep

    def _strings(self, starts: np.ndarray[Any, Any], lengths: np.ndarray[Any, Any]) -> pa.Array:
        """UTF-8 values (validated by the cast); null where the length is -1."""
        lengths = lengths.astype(np.int64)
        valid = lengths >= 0
        if not valid.any():
            return pa.nulls(len(starts), pa.string())
        return self._views(starts, lengths, None if valid.all() else valid).cast(pa.string())

    def _views(
        self,
        starts: np.ndarray[Any, Any],
        lengths: np.ndarray[Any, Any],
        valid: np.ndarray[Any, Any] | None = None,
    ) -> pa.Array:
        """A binary_view array of the values at `starts` (absent where `valid` is False).

        Each view is 16 bytes: the length, then either the value itself (up to 12 bytes,
        zero-padded) or its first 4 bytes, buffer 0 and its position in the data.
        """
        n = len(starts)
        lengths = lengths.astype(np.int32)
        validity = None
        if valid is not None:
            lengths = np.where(valid, lengths, 0)
            validity = pa.py_buffer(np.packbits(valid, bitorder="little"))
        views = np.zeros((n, 4), np.int32)
        views[:, 0] = lengths
        short = lengths <= 12
        if short.all():
            inline = self._gather(starts, 12).view(np.uint8).reshape(n, 12)
            inline[_INLINE_BYTES[None, :] >= lengths[:, None]] = 0
            views.view(np.uint8)[:, 4:] = inline
        else:
            views[:, 1] = self._gather(starts, 4).view(np.int32)
            views[:, 3] = starts  # buffer 0 (views[:, 2]) at this position
            if short.any():
                rows = np.flatnonzero(short)
                inline = self._gather(starts[rows], 12).view(np.uint8).reshape(len(rows), 12)
                inline[_INLINE_BYTES[None, :] >= lengths[rows, None]] = 0
                views.view(np.uint8)[rows, 4:] = inline
        return pa.Array.from_buffers(
            pa.binary_view(), n, [validity, pa.py_buffer(views), self.buffer]
        )

    def _gather(self, starts: np.ndarray[Any, Any], width: int) -> np.ndarray[Any, Any]:
        """The `width` bytes at each of `starts`, as one `V<width>` value each; bytes past
        the end of the data read as zeros.

        Each value is an element of an overlapping view of the data (element i is bytes
        i .. i + width - 1), so the gather copies `width` bytes per value in C rather
        than indexing every byte."""
        data = self.data
        last = len(data) - width  # the last start whose bytes are all in the data
        values: np.ndarray[Any, Any]
        if last < 0 or len(starts) == 0:
            values = _windows(data.ljust(len(data) + width, b"\0"), width)[starts]
            return values
        windows = self._windows.get(width)
        if windows is None:
            windows = self._windows[width] = _windows(data, width)
        if int(starts.max()) <= last:
            values = windows[starts]
            return values
        values = windows[np.minimum(starts, last)]
        near_end = starts > last
        tail = _windows(data[last:] + bytes(width), width)
        values[near_end] = tail[starts[near_end] - last]
        return values

    def _attributes(
        self,
        header: np.ndarray[Any, Any],
        starts: np.ndarray[Any, Any],
        ends: np.ndarray[Any, Any],
    ) -> pa.Array:
        """The MessageAttributes map column; system attributes are checked and skipped."""
        user, system = header["attribute_count"], header["system_attribute_count"]
        counts = np.zeros(len(starts), np.int32)
        names: list[str] = []
        data_types: list[str] = []
        strings: list[str | None] = []
        binaries: list[bytes | None] = []
        for row in np.flatnonzero((user > 0) | (system > 0)).tolist():
            position, end = int(starts[row]), int(ends[row])
            try:
                for index in range(int(user[row]) + int(system[row])):
                    name, data_type, string, binary, position = self._attribute(position, end)
                    if index < user[row]:
                        names.append(name)
                        data_types.append(data_type)
                        strings.append(string)
                        binaries.append(binary)
            except (struct.error, UnicodeDecodeError, ValueError) as exc:
                raise self.corrupt(int(starts[row]), f"malformed attribute: {exc}") from None
            if position != end:
                raise self.corrupt(int(starts[row]), "attributes do not fill their space")
            counts[row] = user[row]
        offsets = np.zeros(len(starts) + 1, np.int32)
        np.cumsum(counts, out=offsets[1:])
        items = pa.StructArray.from_arrays(
            [
                pa.array(data_types, pa.string()),
                pa.array(strings, pa.string()),
                pa.array(binaries, pa.binary()),
            ],
            fields=list(ARROW_ATTRIBUTE_VALUE),
        )
        return pa.MapArray.from_arrays(
            pa.array(offsets), pa.array(names, pa.string()), items, type=ARROW_ATTRIBUTES
        )

    def _attribute(self, position: int, end: int) -> tuple[str, str, str | None, bytes | None, int]:
        data = self.data
        name_length, type_length, string_length, binary_length = ATTRIBUTE_HEADER.unpack_from(
            data, position
        )
        position += ATTRIBUTE_HEADER.size
        fields_end = position + name_length + type_length
        fields_end += max(string_length, 0) + max(binary_length, 0)
        if string_length < -1 or binary_length < -1 or fields_end > end:
            raise ValueError("lengths run past the record")
        name = data[position : position + name_length].decode()
        position += name_length
        data_type = data[position : position + type_length].decode()
        position += type_length
        string = None
        if string_length >= 0:
            string = data[position : position + string_length].decode()
            position += string_length
        binary = None
        if binary_length >= 0:
            binary = data[position : position + binary_length]
            position += binary_length
        return name, data_type, string, binary, position


def _windows(data: bytes, width: int) -> np.ndarray[Any, Any]:
    """Every run of `width` bytes of `data`: element i is bytes i .. i + width - 1."""
    return np.ndarray((len(data) - width + 1,), f"V{width}", buffer=data, strides=(1,))
