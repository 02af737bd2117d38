from __future__ import annotations

from pathlib import Path

import pytest

from storage_nodes.log.segment import LogSegment
from storage_nodes.log.segments import LogSegments


def segment(tmp_path: Path, base: int, end: int) -> LogSegment:
    made = LogSegment(tmp_path, base, 4096, new=True)
    made.next_offset = end
    return made


def test_lookup_by_offset(tmp_path: Path) -> None:
    segments = LogSegments([segment(tmp_path, 0, 10), segment(tmp_path, 10, 25)])
    segments.add(segment(tmp_path, 25, 25))
    assert [segments.containing(o) for o in (0, 9, 10, 24, 25, 10**6)] == [0, 0, 1, 1, 2, 2]
    assert [s.base_offset for s in segments.starting_at(12)] == [10, 25]
    assert segments.active.base_offset == 25
    assert [s.base_offset for s in segments.sealed()] == [0, 10]


def test_segments_must_be_contiguous_and_the_active_one_stays(tmp_path: Path) -> None:
    segments = LogSegments([segment(tmp_path, 0, 10)])
    with pytest.raises(ValueError, match="does not follow"):
        segments.add(segment(tmp_path, 11, 11))
    with pytest.raises(ValueError, match="active segment"):
        segments.remove_oldest(1)
    segments.add(segment(tmp_path, 10, 10))
    assert [s.base_offset for s in segments.remove_oldest(1)] == [0]
    assert segments.first.base_offset == 10
    with pytest.raises(ValueError, match="always has"):
        LogSegments([])
