from __future__ import annotations

from pathlib import Path

from storage_nodes.log.time_index import TimeIndex


def filled(path: Path, base: int, entries: list[tuple[int, int]]) -> TimeIndex:
    index = TimeIndex(path, base, loaded=True)
    for timestamp, offset in entries:
        index.append_packed(index.pack(timestamp, offset))
    return index


def test_lookup_starts_after_every_entry_that_is_too_old(tmp_path: Path) -> None:
    # Records before offset 110 are <= 500, before 130 <= 700, before 150 <= 700.
    index = filled(tmp_path / "t", 100, [(500, 110), (700, 130), (700, 150)])
    assert index.lookup(400) == 100
    assert index.lookup(500) == 100  # a record at exactly 500 may be before 110
    assert index.lookup(501) == 110
    assert index.lookup(700) == 110
    assert index.lookup(701) == 150


def test_the_last_entry_gives_the_segment_maximum_and_end(tmp_path: Path) -> None:
    index = filled(tmp_path / "t", 100, [(500, 110), (900, 160)])
    assert index.max_timestamp() == 900
    assert index.end_offset() == 160
    assert TimeIndex(tmp_path / "u", 0, loaded=True).max_timestamp() is None


def test_entries_are_twelve_big_endian_bytes(tmp_path: Path) -> None:
    index = filled(tmp_path / "t", 1000, [(-1, 1003)])
    assert index.packed() == bytes.fromhex("ffffffffffffffff 00000003")


def test_load_rejects_a_decreasing_timestamp(tmp_path: Path) -> None:
    path = tmp_path / "t"
    path.write_bytes(filled(path, 0, [(500, 10), (400, 20), (900, 30)]).packed())
    index = TimeIndex(path, 0, loaded=False)
    assert not index.load(index.validator(end_offset=30))
    assert len(index) == 1
    assert index.last_at_or_before(25) == 0
