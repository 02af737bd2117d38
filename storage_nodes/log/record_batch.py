"""Record batch codec: the bytes of a ``.log`` file, version (magic) 1.

A segment's ``.log`` file is a plain concatenation of batches; there is no file header.
Every integer is big-endian; strings are UTF-8; a length of -1 means "absent" (None).
The same bytes are uploaded unchanged to object storage and read by the Spark reader;
``docs/formats.md`` is the language-neutral description, with a worked example.

Batch (39-byte header, then ``record_count`` records)::

    offset  size  field
         0     8  base_offset         int64   offset of the first record
         8     4  batch_length        int32   bytes after this field, to the batch end
        12     1  magic               int8    format version, 1
        13     4  crc                 uint32  CRC32C of bytes [17, 12 + batch_length)
        17     2  attributes          int16   flags; 0 in version 1 (reserved)
        19     4  record_count        int32   >= 1; offsets are dense from base_offset
        23     8  first_timestamp_ms  int64   timestamp of the first record
        31     8  max_timestamp_ms    int64   largest record timestamp in the batch

The CRC covers everything after the CRC field, so ``base_offset`` (written by the log
when the batch is placed) and ``batch_length`` are outside it, as in Kafka's v2 format;
a reader checks them structurally (dense offsets, length within the file).
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import google_crc32c

from storage_nodes.log.errors import CorruptRecordError, InvalidRecordError
from storage_nodes.log.record import (
    MAX_DELAY_MS,
    NO_ATTRIBUTES,
    MessageAttribute,
    Record,
    RecordIn,
)

__all__ = [
    "ATTRIBUTE_HEADER",
    "BATCH_HEADER",
    "DIGEST_BYTES",
    "MAGIC",
    "RECORD_HEADER",
    "BatchHeader",
    "EncodedBatch",
    "check_crc",
    "decode_batch",
    "decode_covered",
    "encode_batch",
    "read_header",
]

MAGIC = 1

BATCH_HEADER = struct.Struct(
    ">"
    "q"  # base_offset: offset of the first record, assigned when the log places the batch
    "i"  # batch_length: bytes that follow this field up to the end of the last record
    "b"  # magic: format version of this batch (1)
    "I"  # crc: CRC32C (Castagnoli) of every byte after this field to the end of the batch
    "h"  # attributes: flag bits, 0 in version 1 (reserved for a compression codec)
    "i"  # record_count: records in the batch, >= 1
    "q"  # first_timestamp_ms: timestamp of the first record; record deltas start here
    "q"  # max_timestamp_ms: largest timestamp of any record in the batch
)

RECORD_HEADER = struct.Struct(
    ">"
    "i"  # record_length: bytes that follow this field up to the end of the record
    "i"  # offset_delta: offset - base_offset (0, 1, 2, ... in order)
    "q"  # timestamp_delta: timestamp_ms - first_timestamp_ms (signed: clocks can step back)
    "i"  # delay_ms: delivery delay requested by the producer, 0 .. 2**31-1
    "H"  # message_id_length: UTF-8 bytes of message_id that follow
    "i"  # key_length: bytes of the partition key, -1 when absent
    "h"  # group_id_length: UTF-8 bytes of the FIFO message group id, -1 when absent
    "h"  # dedup_id_length: UTF-8 bytes of the deduplication id, -1 when absent
    "H"  # attribute_count: user MessageAttributes that follow
    "H"  # system_attribute_count: system attributes (e.g. AWSTraceHeader) after those
    "i"  # body_length: bytes of the body, the last field of the record
)
# After the fixed part: message_id, key, group_id, dedup_id, the user attributes, the
# system attributes, body -- each exactly as long as its length says, absent ones empty.

ATTRIBUTE_HEADER = struct.Struct(
    ">"
    "H"  # name_length: UTF-8 bytes of the attribute name
    "H"  # data_type_length: UTF-8 bytes of DataType ("String", "Number.float", ...)
    "i"  # string_value_length: UTF-8 bytes of StringValue, -1 when absent
    "i"  # binary_value_length: bytes of BinaryValue, -1 when absent
)
# Followed by name, data_type, string_value, binary_value.

# The two halves of BATCH_HEADER: what precedes the CRC'd region, and its first bytes.
_PREFIX = struct.Struct(BATCH_HEADER.format[:5])  # ">qibI"
_COVERED = struct.Struct(">" + BATCH_HEADER.format[5:])  # ">hiqq"
_CRC_START = _PREFIX.size  # 17
_LENGTH_END = 12  # base_offset + batch_length: what batch_length does not count
assert _PREFIX.size + _COVERED.size == BATCH_HEADER.size == 39

# What most producers append: one record with none of the optional fields. Its covered
# batch header and its record header are adjacent, so one call packs both.
_PLAIN_ONE = struct.Struct(">" + _COVERED.format[1:] + RECORD_HEADER.format[1:])
_RECORD_FIXED = RECORD_HEADER.size - 4  # the fixed bytes record_length counts
DIGEST_BYTES = 16  # a body's MD5, as decode_covered finds them after a batch


class BatchHeader(NamedTuple):
    """The decoded fixed header of one batch (see the table at the top)."""

    base_offset: int
    batch_length: int
    magic: int
    crc: int
    attributes: int
    record_count: int
    first_timestamp_ms: int
    max_timestamp_ms: int

    @property
    def size(self) -> int:
        """Bytes the whole batch occupies in the file."""
        return _LENGTH_END + self.batch_length

    @property
    def next_offset(self) -> int:
        """The offset right after this batch's last record."""
        return self.base_offset + self.record_count


class EncodedBatch(NamedTuple):
    """A batch encoded before its base offset is known.

    ``covered`` is everything the CRC covers; :meth:`prefix` makes the first 17 bytes once
    the log has chosen the base offset, so placing a batch never re-encodes it.
    """

    record_count: int
    first_timestamp_ms: int
    max_timestamp_ms: int
    crc: int
    covered: bytes
    size: int  # bytes of the whole batch: prefix + covered

    def prefix(self, base_offset: int) -> bytes:
        return _PREFIX.pack(base_offset, self.size - _LENGTH_END, MAGIC, self.crc)


def encode_batch(records: Sequence[RecordIn]) -> EncodedBatch:
    """Encode ``records`` as one batch; raise :class:`InvalidRecordError` if they can't be."""
    if len(records) == 1:
        record = records[0]
        if (
            record.key is None
            and record.group_id is None
            and record.dedup_id is None
            and not record.attributes
            and not record.system_attributes
        ):
            return _encode_plain_one(record)
    if not records:
        raise InvalidRecordError("a batch needs at least one record")
    first_ts = max_ts = records[0].timestamp_ms
    parts: list[bytes] = [b""]
    try:
        for delta, record in enumerate(records):
            ts = record.timestamp_ms
            max_ts = max(max_ts, ts)
            _encode_record(parts, record, delta, ts - first_ts)
        parts[0] = _COVERED.pack(0, len(records), first_ts, max_ts)
    except (struct.error, UnicodeEncodeError, OverflowError, TypeError) as exc:
        raise InvalidRecordError(f"record cannot be encoded: {exc}") from exc
    covered = b"".join(parts)
    size = _CRC_START + len(covered)
    if size - _LENGTH_END > 2**31 - 1:
        raise InvalidRecordError(f"batch of {size} bytes exceeds the 2 GiB format limit")
    return EncodedBatch(len(records), first_ts, max_ts, google_crc32c.value(covered), covered, size)


def _encode_plain_one(record: RecordIn) -> EncodedBatch:
    """:func:`encode_batch` of a lone record without optional fields: the same bytes as the
    general path, in one pack and one join (every producer that sends one message pays
    this on the event loop)."""
    delay_ms = record.delay_ms
    if not 0 <= delay_ms <= MAX_DELAY_MS:
        raise InvalidRecordError(f"delay_ms {delay_ms} is outside 0..{MAX_DELAY_MS}")
    ts = record.timestamp_ms
    body = record.body
    try:
        message_id = record.message_id.encode()
        id_length, body_length = len(message_id), len(body)
        header = _PLAIN_ONE.pack(
            0, 1, ts, ts,  # batch: attributes, record_count, first and max timestamps
            _RECORD_FIXED + id_length + body_length, 0, 0, delay_ms, id_length, -1, -1, -1,
            0, 0, body_length,
        )  # fmt: skip
        covered = b"".join((header, message_id, body))
    except (struct.error, UnicodeEncodeError, OverflowError, TypeError) as exc:
        raise InvalidRecordError(f"record cannot be encoded: {exc}") from exc
    size = _CRC_START + len(covered)
    if size - _LENGTH_END > 2**31 - 1:
        raise InvalidRecordError(f"batch of {size} bytes exceeds the 2 GiB format limit")
    return EncodedBatch(1, ts, ts, google_crc32c.value(covered), covered, size)


def _encode_record(parts: list[bytes], record: RecordIn, delta: int, ts_delta: int) -> None:
    delay_ms = record.delay_ms
    if not 0 <= delay_ms <= MAX_DELAY_MS:
        raise InvalidRecordError(f"delay_ms {delay_ms} is outside 0..{MAX_DELAY_MS}")
    message_id = record.message_id.encode()
    body = record.body
    if (
        record.key is None
        and record.group_id is None
        and record.dedup_id is None
        and not record.attributes
        and not record.system_attributes
    ):  # the common case, kept short: it is on every producer's path
        length = RECORD_HEADER.size - 4 + len(message_id) + len(body)
        header = RECORD_HEADER.pack(
            length, delta, ts_delta, delay_ms, len(message_id), -1, -1, -1, 0, 0, len(body)
        )
        parts += (header, message_id, body)
        return
    key = record.key
    group_id = None if record.group_id is None else record.group_id.encode()
    dedup_id = None if record.dedup_id is None else record.dedup_id.encode()
    attributes = _encode_attributes(record.attributes) if record.attributes else b""
    system = _encode_attributes(record.system_attributes) if record.system_attributes else b""
    optional = (key, group_id, dedup_id)
    variable = len(message_id) + len(attributes) + len(system) + len(body)
    variable += sum(len(value) for value in optional if value is not None)
    parts.append(
        RECORD_HEADER.pack(
            RECORD_HEADER.size - 4 + variable,
            delta,
            ts_delta,
            delay_ms,
            len(message_id),
            *(-1 if value is None else len(value) for value in optional),
            len(record.attributes),
            len(record.system_attributes),
            len(body),
        )
    )
    parts.append(message_id)
    parts += (value for value in optional if value)
    parts += (attributes, system, body)


def _encode_attributes(attributes: Mapping[str, MessageAttribute]) -> bytes:
    out: list[bytes] = []
    for name, attribute in attributes.items():
        name_bytes = name.encode()
        data_type = attribute.data_type.encode()
        string = None if attribute.string_value is None else attribute.string_value.encode()
        binary = attribute.binary_value
        out.append(
            ATTRIBUTE_HEADER.pack(
                len(name_bytes),
                len(data_type),
                -1 if string is None else len(string),
                -1 if binary is None else len(binary),
            )
        )
        out += (name_bytes, data_type, string or b"", binary or b"")
    return b"".join(out)


def read_header(buf: bytes, pos: int = 0) -> BatchHeader:
    """Decode the fixed header at ``buf[pos:]``; structural checks only, not the CRC.

    Raises :class:`CorruptRecordError` for an unknown magic or attribute flag, an
    impossible length or record count, or fewer than 39 bytes available.
    """
    if len(buf) - pos < BATCH_HEADER.size:
        raise CorruptRecordError(f"truncated batch header ({len(buf) - pos} bytes)")
    header = BatchHeader._make(BATCH_HEADER.unpack_from(buf, pos))
    if header.magic != MAGIC:
        raise CorruptRecordError(f"unknown batch magic {header.magic}")
    if header.attributes != 0:  # version 1 defines no flags; a set one means unreadable
        raise CorruptRecordError(f"unsupported batch attributes {header.attributes:#x}")
    if header.batch_length < BATCH_HEADER.size - _LENGTH_END or header.record_count < 1:
        raise CorruptRecordError(
            f"impossible batch: length {header.batch_length}, {header.record_count} records"
        )
    return header


def check_crc(buf: bytes, pos: int, header: BatchHeader) -> None:
    """Raise :class:`CorruptRecordError` unless the batch at ``buf[pos:]`` is whole and its
    CRC32C matches ``header.crc``."""
    end = pos + header.size
    if end > len(buf):
        raise CorruptRecordError(f"batch of {header.size} bytes runs past the end of the data")
    if google_crc32c.value(buf[pos + _CRC_START : end]) != header.crc:
        raise CorruptRecordError(f"CRC32C mismatch in batch at offset {header.base_offset}")


def decode_batch(buf: bytes, pos: int = 0) -> tuple[BatchHeader, list[Record]]:
    """Verify the CRC of the batch at ``buf[pos:]`` and decode all of its records.

    Never returns a partially decoded or unverified batch: any mismatch raises
    :class:`CorruptRecordError`.
    """
    header = read_header(buf, pos)
    check_crc(buf, pos, header)
    end = pos + header.size
    try:
        records, pos = _decode_records(
            buf, pos + BATCH_HEADER.size, end, header.base_offset, header.first_timestamp_ms,
            header.record_count,
        )  # fmt: skip
    except (struct.error, UnicodeDecodeError, IndexError) as exc:
        raise CorruptRecordError(f"malformed record in batch at {header.base_offset}") from exc
    if pos != end:
        raise CorruptRecordError("batch length disagrees with its records")
    return header, records


def decode_covered(
    buf: bytes, covered_end: int, base_offset: int, digests_at: int = -1
) -> list[Record]:
    """The records of a batch kept in memory as ``buf[:covered_end]``, the bytes
    :attr:`EncodedBatch.covered` held when it was appended at ``base_offset``.

    For the tail cache: these bytes never left the process, so their CRC is not checked.
    With ``digests_at``, ``buf`` holds each record's 16-byte body MD5 from there on, in
    order, and the records carry them as ``body_md5``.
    """
    _flags, record_count, first_timestamp_ms, _max_ts = _COVERED.unpack_from(buf, 0)
    records, _ = _decode_records(
        buf, _COVERED.size, covered_end, base_offset, first_timestamp_ms, record_count,
        digests_at,
    )  # fmt: skip
    return records


def _decode_records(  # noqa: PLR0917 (internal, positional for its callers' speed)
    buf: bytes,
    pos: int,
    end: int,
    base_offset: int,
    first_timestamp_ms: int,
    record_count: int,
    digests_at: int = -1,
) -> tuple[list[Record], int]:
    """The ``record_count`` records of a batch, the first of them at ``buf[pos:]``, and
    the position after the last."""
    records: list[Record] = []
    unpack = RECORD_HEADER.unpack_from
    body_md5: str | None = None
    for expected_delta in range(record_count):
        (length, delta, ts_delta, delay_ms, mid_len, key_len, gid_len, did_len, n_attrs,
         n_system, body_len) = unpack(buf, pos)  # fmt: skip
        record_end = pos + 4 + length
        if delta != expected_delta or record_end > end:
            raise CorruptRecordError(f"record {expected_delta} of batch is out of place")
        if digests_at >= 0:
            digest_at = digests_at + DIGEST_BYTES * delta
            body_md5 = buf[digest_at : digest_at + DIGEST_BYTES].hex()
        pos += RECORD_HEADER.size
        if key_len == gid_len == did_len == -1 and n_attrs == n_system == 0:
            # No optional field: what nearly every record holds, decoded without the
            # helper calls below (a consumer's every message is decoded here).
            id_end = pos + mid_len
            pos = id_end + body_len
            if pos != record_end:
                raise CorruptRecordError(
                    f"record {expected_delta} length disagrees with its fields"
                )
            records.append(
                Record(
                    base_offset + delta,
                    buf[id_end - mid_len : id_end].decode(),
                    first_timestamp_ms + ts_delta,
                    buf[id_end:pos],
                    None,
                    None,
                    None,
                    delay_ms,
                    NO_ATTRIBUTES,
                    NO_ATTRIBUTES,
                    body_md5,
                )
            )
            continue
        message_id, pos = buf[pos : pos + mid_len].decode(), pos + mid_len
        key, pos = _optional(buf, pos, key_len)
        group_id, pos = _optional(buf, pos, gid_len)
        dedup_id, pos = _optional(buf, pos, did_len)
        attributes, pos = _decode_attributes(buf, pos, n_attrs)
        system, pos = _decode_attributes(buf, pos, n_system)
        body, pos = buf[pos : pos + body_len], pos + body_len
        if pos != record_end:
            raise CorruptRecordError(f"record {expected_delta} length disagrees with its fields")
        records.append(
            Record(
                base_offset + delta,
                message_id,
                first_timestamp_ms + ts_delta,
                body,
                key,
                None if group_id is None else group_id.decode(),
                None if dedup_id is None else dedup_id.decode(),
                delay_ms,
                attributes,
                system,
                body_md5,
            )
        )
    return records, pos


def _optional(buf: bytes, pos: int, length: int) -> tuple[bytes | None, int]:
    if length < 0:
        return None, pos
    return buf[pos : pos + length], pos + length


def _decode_attributes(buf: bytes, pos: int, count: int) -> tuple[dict[str, MessageAttribute], int]:
    attributes: dict[str, MessageAttribute] = {}
    for _ in range(count):
        name_len, type_len, string_len, binary_len = ATTRIBUTE_HEADER.unpack_from(buf, pos)
        pos += ATTRIBUTE_HEADER.size
        name, pos = buf[pos : pos + name_len].decode(), pos + name_len
        data_type, pos = buf[pos : pos + type_len].decode(), pos + type_len
        string, pos = _optional(buf, pos, string_len)
        binary, pos = _optional(buf, pos, binary_len)
        attributes[name] = MessageAttribute(
            data_type, None if string is None else string.decode(), binary
        )
    return attributes, pos
