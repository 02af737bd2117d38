"""The walk over a slice's batches (spark/segment_walk.py), on bytes the log encodes."""

from __future__ import annotations

import numpy as np
import pytest

from spark.errors import CorruptSegment
from spark.segment_walk import ByteWindows, SegmentWalker
from storage_nodes.log.record import RecordIn
from tests.spark.test_arrow_decode import segment


def batches(count: int, records: int = 1, body: int = 20) -> list[list[RecordIn]]:
    return [
        [RecordIn(f"m{b:04d}-{i}", b, bytes(body)) for i in range(records)] for b in range(count)
    ]


def test_a_run_of_equal_batches_is_taken_in_one_piece() -> None:
    data = segment(batches(100, records=3), base=50)

    walk = SegmentWalker(data, 0, "k").walk(0, 50, guess=True)

    starts, bases, _, counts, ends = walk.arrays()
    assert len(walk.pieces) == 1
    assert (walk.end_position, walk.end_offset) == (len(data), 350)
    assert list(bases) == list(range(50, 350, 3))
    assert list(counts) == [3] * 100
    assert len(starts) == 300
    assert ends[-1] == len(data)


def test_without_guessing_the_same_records_are_found() -> None:
    data = segment(batches(20, records=2) + batches(3, records=1, body=7), base=0)

    guessed = SegmentWalker(data, 0, "k").walk(0, 0, guess=True).arrays()
    walked = SegmentWalker(data, 0, "k").walk(0, 0, guess=False).arrays()

    assert all(np.array_equal(a, b) for a, b in zip(guessed, walked, strict=True))


def test_a_bad_crc_inside_a_run_names_the_object_and_byte() -> None:
    data = bytearray(segment(batches(10)))
    size = len(data) // 10
    data[6 * size + 40] ^= 0xFF  # inside the seventh batch's first record

    with pytest.raises(
        CorruptSegment, match=f"obj: corrupt batch at byte {1000 + 6 * size}: CRC32C"
    ):
        SegmentWalker(bytes(data), 1000, "obj").walk(0, 0, guess=True)


def test_fixed_width_reads_past_the_end_are_zeros() -> None:
    windows = ByteWindows(b"abcdef")

    got = windows.gather(np.array([0, 3, 5], np.int64), 4)

    assert [bytes(v) for v in got] == [b"abcd", b"def\0", b"f\0\0\0"]
    assert [bytes(v) for v in ByteWindows(b"ab").gather(np.array([0, 1], np.int64), 4)] == [
        b"ab\0\0",
        b"b\0\0\0",
    ]
