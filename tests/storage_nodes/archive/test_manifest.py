"""Manifests (manifest.py) on every object store: first write, update, fencing of a lower
epoch, and a concurrent replacement retried over the newer version.

The interleavings are made deterministic by `change`: `Manifests.update` calls it between
reading the manifest and its conditional put, so a competing write done inside it lands
exactly in the race window.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from storage_nodes.archive import layout
from storage_nodes.archive.manifest import Fenced, Manifest, Manifests, SegmentEntry
from storage_nodes.archive.object_store import ObjectStore

STREAM = "0f3a9c"


def segment(base_offset: int, end_offset: int, writer_epoch: int = 1) -> SegmentEntry:
    return SegmentEntry(
        base_offset=base_offset,
        end_offset=end_offset,
        first_timestamp_ms=1_700_000_000_000 + base_offset,
        max_timestamp_ms=1_700_000_000_000 + end_offset - 1,
        bytes=100 * (end_offset - base_offset),
        index_bytes=8,
        time_index_bytes=12,
        crc32c="0a1b2c3d",
        writer_epoch=writer_epoch,
    )


def adding(entry: SegmentEntry) -> Callable[[Manifest], Manifest]:
    def change(manifest: Manifest) -> Manifest:
        segments = sorted((*manifest.segments, entry), key=lambda s: s.base_offset)
        return replace(manifest, segments=tuple(segments))

    return change


def test_first_write_then_update(store: ObjectStore) -> None:
    manifests = Manifests(store)
    assert manifests.read(STREAM, 0) == (None, None)

    first = manifests.update(STREAM, 0, 1, adding(segment(0, 10)))
    read, etag = manifests.read(STREAM, 0)
    assert read == first == Manifest(STREAM, 0, 1, (segment(0, 10),))
    assert etag is not None

    second = manifests.update(STREAM, 0, 2, adding(segment(10, 25, writer_epoch=2)))
    assert second == Manifest(STREAM, 0, 2, (segment(0, 10), segment(10, 25, writer_epoch=2)))
    assert manifests.read(STREAM, 0)[0] == second
    assert manifests.read(STREAM, 1) == (None, None)


def test_a_lower_epoch_is_fenced_and_changes_nothing(store: ObjectStore) -> None:
    manifests = Manifests(store)
    manifests.update(STREAM, 0, 5, adding(segment(0, 10, writer_epoch=5)))
    before = store.get_with_etag(layout.manifest(STREAM, 0))

    with pytest.raises(Fenced, match="epoch 5"):
        manifests.update(STREAM, 0, 4, adding(segment(10, 20, writer_epoch=4)))

    assert store.get_with_etag(layout.manifest(STREAM, 0)) == before


@pytest.mark.parametrize("existing", [False, True], ids=["first-write", "update"])
def test_a_concurrent_replacement_is_retried_and_both_changes_survive(
    store: ObjectStore, existing: bool
) -> None:
    manifests = Manifests(store)
    if existing:
        manifests.update(STREAM, 0, 3, adding(segment(0, 10, writer_epoch=3)))
    calls = 0

    def change_racing_another_writer(manifest: Manifest) -> Manifest:
        nonlocal calls
        calls += 1
        if calls == 1:  # between this writer's read and its put, another one writes
            Manifests(store).update(STREAM, 0, 3, adding(segment(20, 30, writer_epoch=3)))
        return adding(segment(10, 20, writer_epoch=3))(manifest)

    result = manifests.update(STREAM, 0, 3, change_racing_another_writer)

    assert calls == 2  # the first put failed its condition; the second read saw the other
    expected = [segment(10, 20, 3), segment(20, 30, 3)]
    if existing:
        expected.insert(0, segment(0, 10, 3))
    assert result == Manifest(STREAM, 0, 3, tuple(expected))
    assert manifests.read(STREAM, 0)[0] == result


def test_a_newer_writer_in_the_race_window_fences_the_older(store: ObjectStore) -> None:
    manifests = Manifests(store)
    manifests.update(STREAM, 0, 1, adding(segment(0, 10)))

    def change_while_the_partition_moves(manifest: Manifest) -> Manifest:
        Manifests(store).update(STREAM, 0, 2, adding(segment(10, 20, writer_epoch=2)))
        return adding(segment(10, 15))(manifest)

    with pytest.raises(Fenced):
        manifests.update(STREAM, 0, 1, change_while_the_partition_moves)

    assert manifests.read(STREAM, 0)[0] == Manifest(
        STREAM, 0, 2, (segment(0, 10), segment(10, 20, writer_epoch=2))
    )
