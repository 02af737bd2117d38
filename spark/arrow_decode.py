"""Segment bytes -> Arrow record batches in the reader's schema (spark/schema.py).

The bytes are the `.log` format of docs/formats.md (storage_nodes/log/record_batch.py
writes them). Where each record starts is found by a walk (spark/segment_walk.py, which
also checks every batch's CRC); everything else is done on whole columns with numpy:
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

import numpy as np
import pyarrow as pa

from spark.archive_reader import SegmentSlice
from spark.errors import CorruptSegment
from spark.schema import ARROW_ATTRIBUTE_VALUE, ARROW_ATTRIBUTES, ARROW_SCHEMA, ARROW_TIMESTAMP
from spark.segment_walk import SegmentWalker, Walk, WrongGuess
from storage_nodes.log.record_batch import ATTRIBUTE_HEADER, RECORD_HEADER

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
            walk = decoder.walker.walk(position, offset, guess=True)
            batch = decoder.columns(walk)
        except WrongGuess:
            walk = decoder.walker.walk(position, offset, guess=False)
            batch = decoder.columns(walk)
        if batch.num_rows:
            yield batch
        position, offset = walk.end_position, walk.end_offset
    if offset != segment.end_offset:
        raise CorruptSegment(
            f"{where}: bytes {segment.start_position}..{segment.end_position} hold offsets "
            f"{segment.first_offset}..{offset}, the manifest says ..{segment.end_offset}"
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
        self.buffer = pa.py_buffer(data)
        self.segment = segment
        self.stream = columns
        self.walker = SegmentWalker(data, segment.start_position, where)

    def columns(self, walk: Walk) -> pa.RecordBatch:
        """The walked records as one Arrow batch, after checking their headers."""
        starts, bases, first_timestamps, counts, ends = walk.arrays()
        if len(starts) and int(starts[-1]) + RECORD_HEADER.size > len(self.data):
            raise self.walker.corrupt(int(starts[-1]), "record header runs past the data")
        header = self.walker.windows.gather(starts, RECORD_HEADER.size).view(_RECORD)
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
        walk: Walk,
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
                raise WrongGuess
            first = int(np.flatnonzero(bad)[0])
            raise self.walker.corrupt(
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
            inline = self.walker.windows.gather(starts, 12).view(np.uint8).reshape(n, 12)
            inline[_INLINE_BYTES[None, :] >= lengths[:, None]] = 0
            views.view(np.uint8)[:, 4:] = inline
        else:
            views[:, 1] = self.walker.windows.gather(starts, 4).view(np.int32)
            views[:, 3] = starts  # buffer 0 (views[:, 2]) at this position
            if short.any():
                rows = np.flatnonzero(short)
                inline = (
                    self.walker.windows.gather(starts[rows], 12)
                    .view(np.uint8)
                    .reshape(len(rows), 12)
                )
                inline[_INLINE_BYTES[None, :] >= lengths[rows, None]] = 0
                views.view(np.uint8)[rows, 4:] = inline
        return pa.Array.from_buffers(
            pa.binary_view(), n, [validity, pa.py_buffer(views), self.buffer]
        )

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
                raise self.walker.corrupt(int(starts[row]), f"malformed attribute: {exc}") from None
            if position != end:
                raise self.walker.corrupt(int(starts[row]), "attributes do not fill their space")
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
