from __future__ import annotations

from pathlib import Path

from storage_nodes.log.offset_index import OffsetIndex


def filled(path: Path, base: int, entries: list[tuple[int, int]]) -> OffsetIndex:
    index = OffsetIndex(path, base, loaded=True)
    for offset, position in entries:
        index.append_packed(index.pack(offset, position))
    return index


def test_lookup_finds_the_last_entry_at_or_before(tmp_path: Path) -> None:
    index = filled(tmp_path / "i", 100, [(110, 4096), (130, 8200), (150, 12300)])
    assert index.lookup(100) == (100, 0)  # before the first entry: the segment start
    assert index.lookup(109) == (100, 0)
    assert index.lookup(110) == (110, 4096)
    assert index.lookup(149) == (130, 8200)
    assert index.lookup(10**9) == (150, 12300)


def test_entries_are_eight_big_endian_bytes_relative_to_the_base(tmp_path: Path) -> None:
    index = filled(tmp_path / "i", 1000, [(1005, 4100)])
    assert index.packed() == bytes.fromhex("00000005 00001004")


def test_load_keeps_the_valid_prefix_and_reports_damage(tmp_path: Path) -> None:
    path = tmp_path / "i"
    good = filled(path, 0, [(10, 4096), (20, 8192)])
    garbage = good.pack(15, 9000)  # goes backwards in offset
    path.write_bytes(good.packed() + garbage + b"\x01\x02\x03")
    index = OffsetIndex(path, 0, loaded=False)
    assert index.load(index.validator(log_size=10_000, end_offset=30)) is False
    assert len(index) == 2
    assert index.lookup(25) == (20, 8192)
    index.rewrite()
    assert path.read_bytes() == good.packed()


def test_entries_outside_the_segment_are_invalid(tmp_path: Path) -> None:
    path = tmp_path / "i"
    path.write_bytes(filled(path, 0, [(10, 4096), (40, 8192)]).packed())
    index = OffsetIndex(path, 0, loaded=False)
    assert not index.load(index.validator(log_size=8000, end_offset=30))
    assert len(index) == 1


def test_a_missing_file_is_an_empty_index(tmp_path: Path) -> None:
    index = OffsetIndex(tmp_path / "absent", 0, loaded=False)
    assert index.load(index.validator(100, 10))
    assert len(index) == 0
    assert index.lookup(5) == (0, 0)


def test_append_to_file_then_rewrite(tmp_path: Path) -> None:
    path = tmp_path / "i"
    index = filled(path, 0, [(10, 4096)])
    index.append_to_file(index.packed())
    index.append_to_file(index.pack(20, 8192), fsync=True)
    assert path.read_bytes() == bytes.fromhex("0000000a00001000 0000001400002000")
    index.truncate(0)
    index.append_packed(index.pack(30, 9000))
    index.rewrite()
    index.close()
    assert path.read_bytes() == bytes.fromhex("0000001e00002328")
