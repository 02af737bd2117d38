"""A follower's copies on disk (storage_nodes/copies/replica_store.py) and the bytes of a
copy (batches.py): fsynced files of record batches, read back in offset order after a
restart, a torn end left out, files the archive covers deleted."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from storage_nodes.copies import batches, replica_store
from storage_nodes.copies.replica_store import ReplicaStore
from storage_nodes.log.record import RecordIn


def _copy(offset: int, *bodies: str) -> bytes:
    return batches.encode(
        offset, [RecordIn(f"m-{b}", 1_700_000_000_000, b.encode()) for b in bodies]
    )


def test_a_copy_is_batches_at_the_owner_s_offsets() -> None:
    data = _copy(7, "a", "b") + _copy(3, "c")
    assert batches.check(data) == (3, 9)
    records = batches.decode(data, source="test")
    assert [(r.offset, r.body) for r in records] == [(7, b"a"), (8, b"b"), (3, b"c")]
    assert [r.offset for r in batches.in_offset_order([*records, *records])] == [3, 7, 8]
    with pytest.raises(ValueError, match="batch at byte"):
        batches.check(data[:-1])
    with pytest.raises(ValueError, match="at least one batch"):
        batches.check(b"")
    # A torn end: what precedes it is kept.
    assert [r.offset for r in batches.decode(data[:-1], source="test")] == [7, 8]


async def test_copies_are_read_back_in_offset_order_after_a_restart(tmp_path: Path) -> None:
    store = ReplicaStore(tmp_path)
    tenure = ("s1", 0, 4)
    await store.write(tenure, _copy(2, "c"), archived_end=0)
    await store.write(tenure, _copy(0, "a", "b"), archived_end=0)
    assert [r.body for r in await store.records(tenure)] == [b"a", b"b", b"c"]
    assert store.end_offset(tenure) == 3
    # A crash in the middle of a write: its torn end was never acknowledged.
    (path,) = (tmp_path / "replicas").rglob("*.copy")
    with path.open("ab") as file:
        file.write(_copy(3, "torn")[:-5])
    again = ReplicaStore(tmp_path)
    await again.load()
    assert [t for t, _ in again.tenures()] == [tenure]
    assert [r.offset for r in await again.records(tenure)] == [0, 1, 2]
    # The torn end was cut at load: a copy written after the restart is read too.
    await again.write(tenure, _copy(3, "d"), archived_end=0)
    assert [r.body for r in await again.records(tenure)] == [b"a", b"b", b"c", b"d"]
    await again.delete(tenure)
    assert again.tenures() == []
    assert not path.exists()


async def test_files_the_archive_covers_are_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replica_store, "FILE_BYTES", 1)  # a new file for every copy
    store = ReplicaStore(tmp_path)
    tenure = ("s1", 3, 9)
    for offset in range(4):
        await store.write(tenure, _copy(offset, f"r{offset}"), archived_end=0)
    assert len(list((tmp_path / "replicas").rglob("*.copy"))) == 4
    await store.write(tenure, _copy(4, "r4"), archived_end=2)  # offsets 0 and 1 archived
    assert [r.offset for r in await store.records(tenure)] == [2, 3, 4]
    await store.trim(tenure, 10)  # the file being written stays
    assert [r.offset for r in await store.records(tenure)] == [4]


async def test_a_bad_copy_is_refused_and_nothing_written(tmp_path: Path) -> None:
    store = ReplicaStore(tmp_path)
    with pytest.raises(ValueError, match="batch"):
        await store.write(("s1", 0, 1), b"not batches at all, surely", archived_end=0)
    with pytest.raises(ValueError, match="stream id"):
        await store.write(("../x", 0, 1), _copy(0, "a"), archived_end=0)
    assert not (tmp_path / "replicas").exists()


async def test_a_write_racing_a_delete_of_its_tenure_is_kept(tmp_path: Path) -> None:
    store = ReplicaStore(tmp_path)
    tenure = ("s1", 0, 4)
    await store.write(tenure, _copy(0, "a"), archived_end=0)
    # The delete takes the tenure's lock first; the write waits for it, then must land
    # in a new entry and directory, not in the one being removed.
    deleting = asyncio.create_task(store.delete(tenure))
    await asyncio.sleep(0)
    await store.write(tenure, _copy(1, "b"), archived_end=0)
    await deleting
    assert [r.body for r in await store.records(tenure)] == [b"b"]
    again = ReplicaStore(tmp_path)
    await again.load()
    assert [r.body for r in await again.records(tenure)] == [b"b"]
