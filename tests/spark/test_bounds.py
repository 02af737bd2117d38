"""Pushed filters and options -> bounds, and which manifest entries they admit."""

from __future__ import annotations

import datetime

import pytest
from pyspark.sql.datasource import (
    EqualTo,
    Filter,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    IsNotNull,
    LessThan,
    LessThanOrEqual,
    Not,
    StringStartsWith,
)

from spark.bounds import Bounds, push
from storage_nodes.archive.manifest import SegmentEntry

UTC = datetime.UTC


def at(ms: int, micros: int = 0) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(ms / 1000, UTC) + datetime.timedelta(microseconds=micros)


@pytest.mark.parametrize(
    ("pushed", "bounds"),
    [
        (EqualTo(("partition",), 2), Bounds(start_partition=2, end_partition=3)),
        (In(("partition",), (1, 4)), Bounds(partitions=frozenset({1, 4}))),
        (GreaterThan(("offset",), 9), Bounds(start_offset=10)),
        (GreaterThanOrEqual(("offset",), 9), Bounds(start_offset=9)),
        (LessThan(("offset",), 9), Bounds(end_offset=9)),
        (LessThanOrEqual(("OFFSET",), 9), Bounds(end_offset=10)),
        (GreaterThanOrEqual(("timestamp",), at(5000)), Bounds(start_timestamp_ms=5000)),
        (GreaterThanOrEqual(("timestamp",), at(5000, 1)), Bounds(start_timestamp_ms=5001)),
        (GreaterThan(("timestamp",), at(5000)), Bounds(start_timestamp_ms=5001)),
        (GreaterThan(("timestamp",), at(5000, 999)), Bounds(start_timestamp_ms=5001)),
        (LessThan(("timestamp",), at(5000)), Bounds(end_timestamp_ms=5000)),
        (LessThan(("timestamp",), at(5000, 1)), Bounds(end_timestamp_ms=5001)),
        (LessThanOrEqual(("timestamp",), at(5000, 999)), Bounds(end_timestamp_ms=5001)),
        (EqualTo(("timestamp",), at(5000)), Bounds(start_timestamp_ms=5000, end_timestamp_ms=5001)),
        (IsNotNull(("offset",)), Bounds()),
    ],
)
def test_a_pushed_filter_becomes_exact_bounds(pushed: Filter, bounds: Bounds) -> None:
    assert push([pushed]) == (bounds, [])


def test_a_timestamp_between_two_milliseconds_matches_nothing() -> None:
    bounds, remaining = push([EqualTo(("timestamp",), at(5000, 500))])

    assert bounds.empty
    assert remaining == []


@pytest.mark.parametrize(
    "pushed",
    [
        Not(EqualTo(("partition",), 1)),
        StringStartsWith(("message_id",), "a"),
        EqualTo(("group_id",), "g"),
        EqualTo(("offset",), "7"),
        EqualTo(("offset",), True),
        EqualTo(("timestamp",), datetime.datetime(2025, 1, 1)),  # naive: not ours to guess
        IsNotNull(("group_id",)),
        EqualTo(("attributes", "tier"), "x"),
    ],
)
def test_other_filters_are_left_to_spark(pushed: Filter) -> None:
    assert push([pushed]) == (Bounds(), [pushed])


def test_offsets_in_a_list_narrow_the_range_and_stay_with_spark() -> None:
    pushed = In(("offset",), (3, 9, 5))

    assert push([pushed]) == (Bounds(start_offset=3, end_offset=10), [pushed])


def test_filters_are_anded() -> None:
    bounds, _ = push(
        [
            GreaterThan(("offset",), 3),
            LessThan(("offset",), 8),
            LessThan(("offset",), 6),
            In(("partition",), (0, 1)),
        ]
    )

    assert bounds == Bounds(partitions=frozenset({0, 1}), start_offset=4, end_offset=6)
    assert bounds.admits_partition(1)
    assert not bounds.admits_partition(2)
    assert Bounds(start_offset=4, end_offset=4).empty
    assert Bounds(partitions=frozenset({5}), end_partition=3).empty


def entry(base: int, end: int, first_ms: int, max_ms: int) -> SegmentEntry:
    return SegmentEntry(base, end, first_ms, max_ms, 100, 0, 12, "00000000", 1)


@pytest.mark.parametrize(
    ("bounds", "admitted"),
    [
        (Bounds(), True),
        (Bounds(start_offset=20), False),
        (Bounds(start_offset=19), True),
        (Bounds(end_offset=10), False),
        (Bounds(end_offset=11), True),
        (Bounds(start_timestamp_ms=501), False),  # every record is at most 500
        (Bounds(start_timestamp_ms=500), True),
        (Bounds(end_timestamp_ms=100), False),  # the first record is at 100
        (Bounds(end_timestamp_ms=101), True),
    ],
)
def test_a_segment_is_admitted_by_its_manifest_entry(bounds: Bounds, admitted: bool) -> None:
    assert bounds.admits_segment(entry(10, 20, 100, 500)) is admitted
