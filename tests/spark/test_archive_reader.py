"""Planning a read (spark/archive_reader.py), in process, with a store that records every
GET: what is fetched while planning, and which segments the tasks then fetch."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from spark.archive_reader import find_stream, plan_slices, read_manifests
from spark.bounds import Bounds
from spark.errors import ArchiveFormatError
from spark.options import parse_options
from spark.schema import SCHEMA
from spark.segment_partition import SegmentPartition, read_slice
from storage_nodes.archive.local_store import LocalDirStore
from storage_nodes.archive.object_store import ObjectInfo
from tests.spark.archive_builder import Archive, ArchivedStream, record

T0 = 1_764_000_000_000


class RecordingStore(LocalDirStore):
    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.gets: list[str] = []

    def get_bytes(self, key: str, start: int = 0, end: int | None = None) -> bytes:
        self.gets.append(key)
        return super().get_bytes(key, start, end)

    def get_with_etag(self, key: str) -> tuple[bytes, str]:
        self.gets.append(key)
        return super().get_with_etag(key)

    def list(self, prefix: str) -> Iterator[ObjectInfo]:
        self.gets.append(f"list {prefix}")
        return super().list(prefix)


@pytest.fixture
def stream(archive: Archive) -> ArchivedStream:
    """Partition 0: four segments of 10 records, an hour apart; partition 1: one."""
    stream = archive.create_stream("orders", partitions=2)
    for s in range(4):
        stream.add_segment(
            0, [[record(10 * s + i, timestamp_ms=T0 + s * 3_600_000) for i in range(10)]]
        )
    stream.add_segment(1, [[record(100)]])
    return stream


def plan(
    store: RecordingStore, bounds: Bounds, max_split_bytes: int = 1 << 26
) -> list[SegmentPartition]:
    options = parse_options({"path": store.url, "queue": "orders"})
    found = find_stream(store, options)
    manifests = read_manifests(store, found, bounds)
    slices = plan_slices(store, found.stream_id, manifests, bounds, max_split_bytes)
    return [SegmentPartition.of(found, s) for s in slices]


def test_planning_reads_names_and_manifests_only(stream: ArchivedStream) -> None:
    store = RecordingStore(stream.archive.store.root)

    planned = plan(store, Bounds(partitions=frozenset({0}), start_offset=20))

    assert [p.segment.first_offset for p in planned] == [20, 30]
    assert all(not key.endswith((".seg", ".index", ".timeindex")) for key in store.gets)
    assert f"{stream.stream_id}/1/manifest.json" not in store.gets


def test_the_tasks_fetch_only_the_planned_segments_each_in_one_get(stream: ArchivedStream) -> None:
    store = RecordingStore(stream.archive.store.root)
    planned = plan(store, Bounds(start_timestamp_ms=T0 + 2 * 3_600_000))
    store.gets.clear()

    fetched = [
        row["offset"]
        for partition in planned
        for batch in read_slice(store, partition, SCHEMA)
        for row in batch.to_pylist()
    ]

    assert store.gets == [p.segment.key for p in planned]
    assert [key.rsplit("/", 1)[1] for key in store.gets] == [
        "00000000000000000020-00000000000000000030.seg",
        "00000000000000000030-00000000000000000040.seg",
    ]
    assert fetched == list(range(20, 40))


def test_a_large_segment_is_cut_where_its_index_says_batches_start(archive: Archive) -> None:
    big = archive.create_stream("orders")
    big.add_segment(0, [[record(i, body=bytes(500), timestamp_ms=T0 + i)] for i in range(400)])
    store = RecordingStore(archive.store.root)

    planned = plan(store, Bounds(), max_split_bytes=50_000)
    later = plan(store, Bounds(start_timestamp_ms=T0 + 300), max_split_bytes=50_000)

    slices = [p.segment for p in planned]
    assert len(slices) >= 4
    assert all(s.size <= 50_000 + 4096 for s in slices)
    assert (slices[0].first_offset, slices[0].start_position) == (0, 0)
    assert all(
        a.end_offset == b.first_offset and a.end_position == b.start_position
        for a, b in itertools.pairwise(slices)
    )
    assert (slices[-1].end_offset, slices[-1].end_position) == (
        400,
        big.manifest(0).segments[0].bytes,
    )
    # The time index rules out the slices whose records are all older than T0 + 300.
    assert len(later) < len(planned)
    assert later[-1].segment.first_offset == slices[-1].first_offset
    assert any(key.endswith(".timeindex") for key in store.gets)


def test_a_manifest_of_another_stream_is_refused(stream: ArchivedStream) -> None:
    store = stream.archive.store
    other = store.get_bytes(f"{stream.stream_id}/1/manifest.json").replace(
        stream.stream_id.encode(), b"ffffffffffffffff"
    )
    store.put_bytes(f"{stream.stream_id}/1/manifest.json", other)

    with pytest.raises(ArchiveFormatError, match="names stream ffffffffffffffff"):
        plan(RecordingStore(store.root), Bounds())
