"""Segment bytes -> Arrow, without Spark: the decoder against the log's own encoder."""

from __future__ import annotations

import datetime
from collections.abc import Sequence

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyspark.sql.pandas.types import to_arrow_schema

from spark.archive_reader import SegmentSlice
from spark.arrow_decode import StreamColumns, decode_slice
from spark.bounds import Bounds
from spark.errors import CorruptSegment
from spark.schema import ARROW_SCHEMA, SCHEMA
from storage_nodes.log.record import MessageAttribute, RecordIn
from storage_nodes.log.record_batch import encode_batch

# docs/formats.md, "Worked example": two records in one batch at offset 42.
WORKED_EXAMPLE = bytes.fromhex(
    "000000000000002a000000930150f972dd0000000000020000018bcfe568000000018bcfe56805"
    "0000002a000000000000000000000000000000000003ffffffffffffffff00000000000000056d"
    "2d3168656c6c6f00000046000000010000000000000005000003e80003000000010001ffff0001"
    "0000000000056d2d326b670005000600000003ffffffff636f6c6f72537472696e67726564776f"
    "726c64"
)
COLUMNS = StreamColumns("123456789012", "orders", 3)


def segment(batches: Sequence[Sequence[RecordIn]], base: int = 0) -> bytes:
    """The .log bytes of the batches placed from `base` on, as the log writes them."""
    out = []
    for batch in batches:
        encoded = encode_batch(batch)
        out += (encoded.prefix(base), encoded.covered)
        base += len(batch)
    return b"".join(out)


EVERYTHING = Bounds()


def decode(
    data: bytes, base: int = 0, end: int | None = None, rows: Bounds = EVERYTHING
) -> list[dict[str, object]]:
    if end is None:
        end = base + sum(1 for _ in _records(data))
    whole = SegmentSlice(3, "s/3/x.seg", 0, len(data), base, end, rows)
    batches = list(decode_slice(data, whole, COLUMNS, "test"))
    assert all(b.schema.equals(ARROW_SCHEMA) for b in batches)
    return pa.Table.from_batches(batches, ARROW_SCHEMA).to_pylist()


def _records(data: bytes) -> list[int]:
    """Record counts of the batches in `data` (walked with plain struct code)."""
    counts, position = [], 0
    while position < len(data):
        length = int.from_bytes(data[position + 8 : position + 12], "big", signed=True)
        count = int.from_bytes(data[position + 19 : position + 23], "big", signed=True)
        counts += [1] * count
        position += 12 + length
    return counts


def expected(records: Sequence[RecordIn], base: int = 0) -> list[dict[str, object]]:
    return [
        {
            "account": COLUMNS.account_id,
            "queue": COLUMNS.name,
            "partition": COLUMNS.partition,
            "offset": base + i,
            "timestamp": datetime.datetime.fromtimestamp(r.timestamp_ms / 1000, datetime.UTC),
            "message_id": r.message_id,
            "group_id": r.group_id,
            "deduplication_id": r.dedup_id,
            "attributes": [
                (
                    name,
                    {
                        "data_type": a.data_type,
                        "string_value": a.string_value,
                        "binary_value": a.binary_value,
                    },
                )
                for name, a in r.attributes.items()
            ],
            "body": r.body,
        }
        for i, r in enumerate(records)
    ]


def test_the_arrow_schema_is_what_pyspark_expects() -> None:
    assert to_arrow_schema(SCHEMA, timezone="UTC").equals(ARROW_SCHEMA)


def test_the_worked_example_of_the_format_page() -> None:
    got = decode(WORKED_EXAMPLE, base=42)

    assert [(r["offset"], r["message_id"], r["body"], r["group_id"]) for r in got] == [
        (42, "m-1", b"hello", None),
        (43, "m-2", b"world", "g"),
    ]
    assert got[1]["attributes"] == [
        ("color", {"data_type": "String", "string_value": "red", "binary_value": None})
    ]
    assert got[1]["timestamp"] == datetime.datetime(2023, 11, 14, 22, 13, 20, 5000, datetime.UTC)


texts = st.text(max_size=20)
attributes = st.dictionaries(
    st.text(min_size=1, max_size=8),
    st.builds(
        MessageAttribute,
        st.sampled_from(["String", "Number", "Binary", "String.custom"]),
        st.none() | texts,
        st.none() | st.binary(max_size=16),
    ),
    max_size=3,
)
records = st.builds(
    RecordIn,
    message_id=st.text(max_size=40),
    timestamp_ms=st.integers(0, 2**42),
    body=st.binary(max_size=64) | st.binary(min_size=200, max_size=400),
    key=st.none() | st.binary(max_size=8),
    group_id=st.none() | texts,
    dedup_id=st.none() | texts,
    delay_ms=st.integers(0, 2**31 - 1),
    attributes=attributes,
    system_attributes=st.dictionaries(
        st.just("AWSTraceHeader"), st.builds(MessageAttribute, st.just("String"), texts), max_size=1
    ),
)


@settings(max_examples=150, deadline=None)
@given(
    batches=st.lists(st.lists(records, min_size=1, max_size=4), min_size=1, max_size=12),
    base=st.integers(0, 2**40),
)
def test_decodes_what_the_log_encodes(batches: list[list[RecordIn]], base: int) -> None:
    flat = [r for batch in batches for r in batch]

    assert decode(segment(batches, base), base) == expected(flat, base)


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(0, 40), min_size=1, max_size=4),
    repeats=st.integers(1, 30),
    tail=st.lists(st.lists(records, min_size=1, max_size=3), max_size=3),
)
def test_runs_of_equal_batches_however_their_records_differ(
    shape: list[int], repeats: int, tail: list[list[RecordIn]]
) -> None:
    # Batches of the same size and count whose records may differ in size (so that the
    # guess that they are equal must be caught and walked again), then odd ones.
    batches = [
        [RecordIn(f"m{b}-{i}", b, bytes(size)) for i, size in enumerate(shape)]
        for b in range(repeats)
    ] + tail
    flat = [r for batch in batches for r in batch]

    assert decode(segment(batches, 7), 7) == expected(flat, 7)


def test_records_outside_the_bounds_are_dropped() -> None:
    batches = [
        [RecordIn(f"m{i}", 1000 + i, b"x") for i in range(b, b + 3)] for b in range(0, 30, 3)
    ]
    data = segment(batches, 100)

    got = decode(data, 100, rows=Bounds(start_offset=105, end_offset=120, end_timestamp_ms=1018))

    assert [r["offset"] for r in got] == list(range(105, 118))


def test_a_large_slice_comes_as_several_arrow_batches() -> None:
    batches = [[RecordIn(f"m{i}", i, bytes(1000))] for i in range(10_000)]
    data = segment(batches)
    whole = SegmentSlice(0, "k", 0, len(data), 0, 10_000, Bounds())

    sizes = [b.num_rows for b in decode_slice(data, whole, COLUMNS, "test")]

    assert len(sizes) > 1
    assert sum(sizes) == 10_000


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda d: d[:13] + bytes([d[13] ^ 1]) + d[14:], "CRC32C mismatch"),
        (lambda d: d[:-1] + bytes([d[-1] ^ 1]), "CRC32C mismatch"),
        (lambda d: d[:12] + b"\x02" + d[13:], "format version \\(magic\\) 2"),
        (lambda d: d[:17] + b"\x00\x01" + d[19:], "unknown batch attributes"),
        (lambda d: d[:-5], "impossible batch|bytes left"),
        (lambda d: bytes(8) + d[8:], "base offset 0, expected 42"),
    ],
)
def test_damage_is_refused_with_the_object_and_position(damage, message: str) -> None:
    with pytest.raises(CorruptSegment, match=message):
        decode(damage(WORKED_EXAMPLE), 42, 44)


def test_a_slice_ending_short_of_the_manifest_is_refused() -> None:
    with pytest.raises(CorruptSegment, match=r"the manifest says \.\.50"):
        decode(WORKED_EXAMPLE, 42, 50)
