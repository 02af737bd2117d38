"""Finding what to read in an archive (docs/formats.md, "The archive"): the stream a name
denotes, its partitions' manifests, and the byte ranges of the segments to fetch.

Everything here runs on the driver, while Spark plans the query, and reads only small
objects: name entries, `stream.json`, `deleted.json` (a HEAD), manifests, and the offset
and time indexes of segments large enough to split. Segment bytes are fetched by the
tasks (`fetch_slice`), each slice with one ranged GET.

Only what a manifest lists exists: a segment object the manifest does not name (an
upload a crash cut short) is never read.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson

from spark.bounds import Bounds
from spark.errors import ArchiveFormatError, CorruptSegment, StreamDeleted, StreamNotFound
from spark.options import ReadOptions
from storage_nodes.archive import layout
from storage_nodes.archive.manifest import Manifest, ManifestError, Manifests, SegmentEntry
from storage_nodes.archive.object_store import ObjectNotFound, ObjectStore

log = logging.getLogger(__name__)

# The .index and .timeindex entries (storage_nodes/log/offset_index.py, time_index.py).
_INDEX_ENTRY = np.dtype([("relative_offset", ">u4"), ("position", ">u4")])
_TIME_INDEX_ENTRY = np.dtype([("max_timestamp_ms", ">i8"), ("relative_offset", ">u4")])


@dataclass(frozen=True, slots=True)
class StreamInfo:
    """A stream as `stream.json` (and its name entries) describe it."""

    stream_id: str
    account_id: str
    kind: str
    name: str
    partitions: int
    created_ms: int

    @classmethod
    def from_json(cls, data: bytes, where: str) -> StreamInfo:
        try:
            raw: Any = orjson.loads(data)
            if raw.get("format") != layout.FORMAT_VERSION:
                raise ArchiveFormatError(
                    f"{where}: stream format {raw.get('format')!r}; this reader knows format "
                    f"{layout.FORMAT_VERSION}"
                )
            return cls(
                str(raw["stream_id"]),
                str(raw["account_id"]),
                str(raw["kind"]),
                str(raw["name"]),
                int(raw["partitions"]),
                int(raw["created_ms"]),
            )
        except ArchiveFormatError:
            raise
        except (orjson.JSONDecodeError, AttributeError, KeyError, TypeError, ValueError) as exc:
            raise ArchiveFormatError(f"{where}: malformed stream descriptor: {exc}") from exc


@dataclass(frozen=True, slots=True)
class SegmentSlice:
    """Whole batches of one archived segment: one Spark input partition, one ranged GET.

    Bytes [start_position, end_position) of the `.seg` object hold the records with
    offsets [first_offset, end_offset); `rows` says which of them the reader wants.
    """

    partition: int
    key: str
    start_position: int
    end_position: int
    first_offset: int
    end_offset: int
    rows: Bounds

    @property
    def size(self) -> int:
        return self.end_position - self.start_position


def find_stream(store: ObjectStore, options: ReadOptions) -> StreamInfo:
    """The stream to read: `stream_id` if given, else the newest stream that bore the
    name and is not marked deleted."""
    if options.stream_id is not None:
        return _stream_by_id(store, options)
    assert options.name is not None
    prefix = layout.names_prefix(options.account_id, options.kind, options.name)
    keys = [info.key for info in store.list(prefix) if info.key.endswith(".json")]
    if not keys:
        raise StreamNotFound(
            f"no archived {options.kind} {options.name!r} in account {options.account_id} "
            f"at {store.url} (nothing under {prefix})"
        )
    deleted: list[str] = []
    for key in reversed(keys):  # newest first: key order is creation order
        stream_id = key.rsplit("/", 1)[1].removesuffix(".json").rpartition("-")[2]
        if not options.include_deleted and _is_deleted(store, stream_id):
            deleted.append(stream_id)
            continue
        return StreamInfo.from_json(store.get_bytes(key), f"{store.url}/{key}")
    raise StreamDeleted(
        f"{options.kind} {options.name!r} in account {options.account_id}: every archived "
        f"stream of this name is marked deleted ({', '.join(deleted)}); to read one during "
        f"its grace period, set stream_id and include_deleted=true"
    )


def stream_by_id(store: ObjectStore, stream_id: str) -> StreamInfo:
    """The stream's `stream.json`, deleted or not."""
    key = layout.stream_descriptor(stream_id)
    try:
        return StreamInfo.from_json(store.get_bytes(key), f"{store.url}/{key}")
    except ObjectNotFound:
        raise StreamNotFound(f"no stream {stream_id} at {store.url}") from None


def _stream_by_id(store: ObjectStore, options: ReadOptions) -> StreamInfo:
    assert options.stream_id is not None
    stream = stream_by_id(store, options.stream_id)
    if options.name is not None and (
        (stream.account_id, stream.kind, stream.name)
        != (options.account_id, options.kind, options.name)
    ):
        raise StreamNotFound(
            f"stream {stream.stream_id} is {stream.kind} {stream.name!r} of account "
            f"{stream.account_id}, not {options.kind} {options.name!r} of {options.account_id}"
        )
    if not options.include_deleted and _is_deleted(store, stream.stream_id):
        raise StreamDeleted(
            f"stream {stream.stream_id} ({stream.kind} {stream.name!r}) is marked deleted; "
            "set include_deleted=true to read it during its grace period"
        )
    return stream


def _is_deleted(store: ObjectStore, stream_id: str) -> bool:
    return store.head(layout.deletion_marker(stream_id)) is not None


def read_manifests(store: ObjectStore, stream: StreamInfo, bounds: Bounds) -> dict[int, Manifest]:
    """The manifests of the partitions `bounds` admit (those with nothing archived yet
    are left out). Refuses a manifest of an unknown format."""
    manifests = Manifests(store)
    found: dict[int, Manifest] = {}
    for partition in range(stream.partitions):
        if not bounds.admits_partition(partition):
            continue
        where = f"{store.url}/{layout.manifest(stream.stream_id, partition)}"
        try:
            manifest, _ = manifests.read(stream.stream_id, partition)
        except ManifestError as exc:
            raise ArchiveFormatError(f"{where}: {exc}") from exc
        if manifest is None:
            continue
        if (manifest.stream_id, manifest.partition) != (stream.stream_id, partition):
            raise ArchiveFormatError(
                f"{where} names stream {manifest.stream_id} partition {manifest.partition}"
            )
        found[partition] = manifest
    return found


def plan_slices(
    store: ObjectStore,
    stream_id: str,
    manifests: Mapping[int, Manifest],
    bounds: Bounds,
    max_split_bytes: int,
) -> list[SegmentSlice]:
    """The slices to read, in (partition, offset) order: one per segment the bounds may
    need, several for one larger than `max_split_bytes`."""
    if bounds.empty:
        return []
    slices: list[SegmentSlice] = []
    for partition in sorted(manifests):
        if not bounds.admits_partition(partition):
            continue
        for segment in manifests[partition].segments:
            if bounds.admits_segment(segment):
                slices += _segment_slices(
                    store,
                    stream_id=stream_id,
                    partition=partition,
                    segment=segment,
                    bounds=bounds,
                    max_split_bytes=max_split_bytes,
                )
    return slices


def _segment_slices(
    store: ObjectStore,
    *,
    stream_id: str,
    partition: int,
    segment: SegmentEntry,
    bounds: Bounds,
    max_split_bytes: int,
) -> Iterator[SegmentSlice]:
    stem = segment.stem(stream_id, partition)
    key = layout.segment_log(stem)
    rows = bounds.for_rows()
    if segment.bytes <= max_split_bytes:
        yield SegmentSlice(
            partition, key, 0, segment.bytes, segment.base_offset, segment.end_offset, rows
        )
        return
    # (offset, position, largest timestamp before that offset) of batch starts, in order.
    points = _split_points(store, stem, segment, with_times=bounds.has_time_bound)
    first = max(
        i
        for i, point in enumerate(points)
        if point[0] <= max(bounds.start_offset, segment.base_offset)
    )
    last = len(points) - 1
    if bounds.end_offset is not None:
        last = min(
            i
            for i, point in enumerate(points)
            if point[0] >= min(bounds.end_offset, segment.end_offset)
        )
    i = first
    while i < last:
        limit = points[i][1] + max_split_bytes
        j = i + 1
        while j < last and points[j + 1][1] <= limit:
            j += 1
        start, end = points[i], points[j]
        # Every record before end's offset is stamped at or before end's timestamp.
        if bounds.start_timestamp_ms is None or end[2] >= bounds.start_timestamp_ms:
            yield SegmentSlice(partition, key, start[1], end[1], start[0], end[0], rows)
        i = j


def _split_points(
    store: ObjectStore, stem: str, segment: SegmentEntry, *, with_times: bool
) -> list[tuple[int, int, int]]:
    """Batch starts from the segment's offset index, plus its start and its end; with
    the time index's bound on the records before each (else the segment's maximum)."""
    maximum = segment.max_timestamp_ms if segment.max_timestamp_ms is not None else 2**63 - 1
    entries = _read_index(store, layout.segment_index(stem), _INDEX_ENTRY, segment.index_bytes)
    relative = entries["relative_offset"].astype(np.int64)
    positions = entries["position"].astype(np.int64)
    valid = _longest_valid_prefix(relative, positions, segment)
    if valid < len(entries):
        log.warning("%s: offset index valid for %d of %d entries", stem, valid, len(entries))
    relative, positions = relative[:valid], positions[:valid]
    times = np.full(valid, maximum, np.int64)
    if with_times and valid:
        time_entries = _read_index(
            store, layout.segment_time_index(stem), _TIME_INDEX_ENTRY, segment.time_index_bytes
        )
        found = dict(
            zip(
                time_entries["relative_offset"].tolist(),
                time_entries["max_timestamp_ms"].tolist(),
                strict=True,
            )
        )
        times = np.array([found.get(r, maximum) for r in relative.tolist()], np.int64)
    base = segment.base_offset
    return [
        (base, 0, maximum),
        *zip((relative + base).tolist(), positions.tolist(), times.tolist(), strict=True),
        (segment.end_offset, segment.bytes, maximum),
    ]


def _read_index(
    store: ObjectStore, key: str, dtype: np.dtype[Any], size: int
) -> np.ndarray[Any, Any]:
    try:
        data = store.get_bytes(key)
    except ObjectNotFound:
        raise CorruptSegment(f"{store.url}/{key}: listed in the manifest but missing") from None
    if len(data) != size:
        raise CorruptSegment(f"{store.url}/{key}: {len(data)} bytes, the manifest says {size}")
    whole = len(data) - len(data) % dtype.itemsize
    return np.frombuffer(data, dtype, count=whole // dtype.itemsize)


def _longest_valid_prefix(
    relative: np.ndarray[Any, Any], positions: np.ndarray[Any, Any], segment: SegmentEntry
) -> int:
    """Entries strictly increasing and inside the segment, as docs/formats.md asks."""
    ok = (
        (relative > 0)
        & (relative < segment.records)
        & (positions > 0)
        & (positions < segment.bytes)
    )
    ok[1:] &= (np.diff(relative) > 0) & (np.diff(positions) > 0)
    bad = np.flatnonzero(~ok)
    return int(bad[0]) if len(bad) else len(ok)


def fetch_slice(store: ObjectStore, segment: SegmentSlice) -> bytes:
    """The slice's bytes, in one ranged GET."""
    where = f"{store.url}/{segment.key}"
    try:
        data = store.get_bytes(segment.key, segment.start_position, segment.end_position)
    except ObjectNotFound:
        raise CorruptSegment(f"{where}: listed in the manifest but missing") from None
    if len(data) != segment.size:
        raise CorruptSegment(
            f"{where}: {len(data)} bytes at {segment.start_position}, expected {segment.size} "
            "(the object is shorter than the manifest says)"
        )
    return data
