from __future__ import annotations

import struct

import google_crc32c
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from storage_nodes.log.errors import CorruptRecordError, InvalidRecordError
from storage_nodes.log.record import MAX_DELAY_MS, MessageAttribute, RecordIn
from storage_nodes.log.record_batch import (
    BATCH_HEADER,
    MAGIC,
    RECORD_HEADER,
    decode_batch,
    encode_batch,
    read_header,
)

from .conftest import as_stored, make_record

# The covered part of a batch header (attributes, record_count, two timestamps): the
# first record header follows it.
_COVERED_HEADER_BYTES = BATCH_HEADER.size - 17

# The worked example of docs/formats.md: two records, the second with every kind of field.
EXAMPLE_RECORDS = [
    RecordIn("m-1", 1_700_000_000_000, b"hello"),
    RecordIn(
        "m-2",
        1_700_000_000_005,
        b"world",
        key=b"k",
        group_id="g",
        delay_ms=1000,
        attributes={"color": MessageAttribute("String", "red")},
    ),
]
EXAMPLE_HEX = (
    "000000000000002a000000930150f972dd0000000000020000018bcfe568000000018bcfe56805"
    "0000002a000000000000000000000000000000000003ffffffffffffffff0000000000000005"
    "6d2d3168656c6c6f00000046000000010000000000000005000003e80003000000010001ffff"
    "00010000000000056d2d326b670005000600000003ffffffff636f6c6f72537472696e6772"
    "6564776f726c64"
)

utf8 = st.text(alphabet=st.characters(codec="utf-8"), max_size=40)
attributes = st.dictionaries(
    utf8,
    st.builds(
        MessageAttribute,
        utf8,
        st.none() | utf8,
        st.none() | st.binary(max_size=40),
    ),
    max_size=4,
)
records = st.builds(
    RecordIn,
    message_id=utf8,
    timestamp_ms=st.integers(-(2**40), 2**40),
    body=st.binary(max_size=3000),
    key=st.none() | st.binary(max_size=60),
    group_id=st.none() | utf8,
    dedup_id=st.none() | utf8,
    delay_ms=st.integers(0, MAX_DELAY_MS),
    attributes=attributes,
    system_attributes=attributes,
)


def encoded(records_in: list[RecordIn], base_offset: int = 0) -> bytes:
    batch = encode_batch(records_in)
    return batch.prefix(base_offset) + batch.covered


def test_the_documented_example_is_byte_exact() -> None:
    assert encoded(EXAMPLE_RECORDS, 42).hex() == EXAMPLE_HEX
    header, decoded = decode_batch(bytes.fromhex(EXAMPLE_HEX))
    assert header.base_offset == 42
    assert header.magic == MAGIC
    assert header.record_count == 2
    assert (header.first_timestamp_ms, header.max_timestamp_ms) == (
        1_700_000_000_000,
        1_700_000_000_005,
    )
    assert decoded == [as_stored(r, 42 + i) for i, r in enumerate(EXAMPLE_RECORDS)]


def test_a_lone_plain_record_is_laid_out_as_in_the_worked_example() -> None:
    # A batch of one record without optional fields is encoded by a shortcut of its own.
    data = encoded(EXAMPLE_RECORDS[:1], 42)
    assert data[BATCH_HEADER.size :] == bytes.fromhex(EXAMPLE_HEX)[0x27:0x55]  # record 0
    header, decoded = decode_batch(data)
    assert (header.base_offset, header.batch_length, header.record_count) == (42, 73, 1)
    assert header.first_timestamp_ms == header.max_timestamp_ms == 1_700_000_000_000
    assert decoded == [as_stored(EXAMPLE_RECORDS[0], 42)]


@settings(max_examples=50, deadline=None)
@given(st.lists(records, min_size=1, max_size=8), st.integers(0, 2**62))
def test_any_batch_round_trips(records_in: list[RecordIn], base_offset: int) -> None:
    data = encoded(records_in, base_offset)
    header, decoded = decode_batch(data)
    assert header.size == len(data)
    assert header.next_offset == base_offset + len(records_in)
    assert header.max_timestamp_ms == max(r.timestamp_ms for r in records_in)
    assert decoded == [as_stored(r, base_offset + i) for i, r in enumerate(records_in)]


@settings(max_examples=50, deadline=None)
@given(st.lists(records, min_size=1, max_size=3), st.data())
def test_a_flipped_bit_under_the_crc_is_detected(
    records_in: list[RecordIn], data: st.DataObject
) -> None:
    batch = bytearray(encoded(records_in))
    # Everything from the attributes field (byte 17) to the end is covered by the CRC.
    position = data.draw(st.integers(17, len(batch) - 1))
    batch[position] ^= 1 << data.draw(st.integers(0, 7))
    with pytest.raises(CorruptRecordError):
        decode_batch(bytes(batch))


def test_a_wrong_crc_field_is_detected() -> None:
    batch = bytearray(encoded([make_record(1)]))
    batch[13] ^= 0x80
    with pytest.raises(CorruptRecordError, match="CRC32C"):
        decode_batch(bytes(batch))


def test_truncated_and_foreign_bytes_are_corrupt() -> None:
    data = encoded([make_record(1)])
    with pytest.raises(CorruptRecordError, match="runs past"):
        decode_batch(data[:-1])
    with pytest.raises(CorruptRecordError, match="truncated batch header"):
        read_header(data[: BATCH_HEADER.size - 1])
    with pytest.raises(CorruptRecordError, match="magic"):
        read_header(data[:12] + b"\x07" + data[13:])
    with pytest.raises(CorruptRecordError, match="impossible batch"):
        read_header(BATCH_HEADER.pack(0, 27, MAGIC, 0, 0, 0, 0, 0))  # no records
    with pytest.raises(CorruptRecordError, match="attributes"):
        read_header(BATCH_HEADER.pack(0, 27, MAGIC, 0, 1, 1, 0, 0))  # e.g. compressed


def test_bad_input_is_refused_before_anything_is_written() -> None:
    with pytest.raises(InvalidRecordError, match="at least one record"):
        encode_batch([])
    with pytest.raises(InvalidRecordError, match="delay_ms"):
        encode_batch([RecordIn("m", 0, b"", delay_ms=MAX_DELAY_MS + 1)])
    with pytest.raises(InvalidRecordError, match="delay_ms"):
        encode_batch([RecordIn("m", 0, b"", delay_ms=-1)])
    with pytest.raises(InvalidRecordError, match="cannot be encoded"):
        encode_batch([RecordIn("x" * 70_000, 0, b"")])
    with pytest.raises(InvalidRecordError, match="cannot be encoded"):
        encode_batch([RecordIn("m", 0, b"", group_id="\ud800")])
    with pytest.raises(InvalidRecordError, match="cannot be encoded"):
        encode_batch([RecordIn("\ud800", 0, b"")])
    with pytest.raises(InvalidRecordError, match="cannot be encoded"):
        encode_batch([RecordIn("m", 2**63, b"")])
    with pytest.raises(InvalidRecordError, match="cannot be encoded"):
        encode_batch([RecordIn("m", -(2**63), b""), RecordIn("m", 2**63 - 1, b"")])


def test_invalid_record_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="at least one record"):
        encode_batch([])


@pytest.mark.parametrize("record", [EXAMPLE_RECORDS[0], EXAMPLE_RECORDS[1]], ids=["plain", "full"])
def test_field_lengths_that_disagree_with_the_record_length_are_corrupt(
    record: RecordIn,
) -> None:
    # A writer bug rather than a flipped bit: the CRC matches, the lengths do not.
    batch = encode_batch([record])
    covered = bytearray(batch.covered)
    body_length_at = _COVERED_HEADER_BYTES + RECORD_HEADER.size - 4
    (body_length,) = struct.unpack_from(">i", covered, body_length_at)
    struct.pack_into(">i", covered, body_length_at, body_length - 1)
    prefix = struct.pack(">qibI", 0, batch.size - 12, MAGIC, google_crc32c.value(bytes(covered)))
    with pytest.raises(CorruptRecordError, match="length disagrees"):
        decode_batch(prefix + bytes(covered))
