from __future__ import annotations

from pathlib import Path

import pytest

from storage_nodes.log.file_names import base_offset_of, index_path, log_path, time_index_path


def test_segment_files_are_named_by_zero_padded_base_offset() -> None:
    directory = Path("/p")
    assert log_path(directory, 0).name == "00000000000000000000.log"
    assert index_path(directory, 42).name == "00000000000000000042.index"
    assert time_index_path(directory, 2**63 - 1).name == "09223372036854775807.timeindex"


def test_names_sort_like_their_offsets() -> None:
    offsets = [0, 9, 10, 99, 100, 123_456_789, 2**40]
    names = [log_path(Path("/p"), o).name for o in reversed(offsets)]
    assert [base_offset_of(Path(n)) for n in sorted(names)] == offsets


def test_foreign_names_are_not_segments() -> None:
    for name in ["0.log", "00000000000000000000.txt", "0000000000000000000x.log", "notes"]:
        assert base_offset_of(Path(name)) is None
    assert base_offset_of(Path("00000000000000000007.index")) == 7


def test_negative_offsets_have_no_name() -> None:
    with pytest.raises(ValueError, match="negative"):
        log_path(Path("/p"), -1)
