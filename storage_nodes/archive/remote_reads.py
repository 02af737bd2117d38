"""Reading records that are no longer on local disk, from the archive.

The partition's manifest says which archived segment holds an offset; the segment's
uploaded `.index` (kept in memory, small) says where the batch at or before it starts;
the batches from there are read through the bounded on-disk cache (segment_cache.py)
with ranged GETs, one read-ahead chunk at a time, and decoded with their CRCs checked,
so a reader never gets a byte the log did not write. Manifests are cached and read again
when an offset lies past the cached one's end (something was tiered since).

A time lookup (`offset_for_time`, for seeking a subscription to a timestamp) reads the
manifest's time ranges to find the first segment that reaches the time, that segment's
uploaded `.timeindex` (kept in memory too) to find the batch a scan may start at, and
then the batches from there, as the local log does (storage_nodes/log/segment.py).

Blocking: the storage node calls `read_offsets` and `offset_for_time` from a worker
thread.
"""

from __future__ import annotations

import bisect
import struct
import threading
from collections import OrderedDict
from collections.abc import Sequence

from storage_nodes.archive import layout
from storage_nodes.archive.manifest import Manifest, Manifests, SegmentEntry
from storage_nodes.archive.segment_cache import SegmentCache
from storage_nodes.log.record import Record
from storage_nodes.log.record_batch import BATCH_HEADER, decode_batch, read_header

_INDEX_ENTRY = struct.Struct(">II")  # relative offset, byte position (docs/formats.md)
_TIME_INDEX_ENTRY = struct.Struct(">qI")  # max timestamp ms before, relative offset
_MAX_CACHED_INDEXES = 256


class ArchiveReader:
    def __init__(self, manifests: Manifests, cache: SegmentCache) -> None:
        self._manifests = manifests
        self._cache = cache
        self._lock = threading.Lock()
        self._manifest_cache: dict[tuple[str, int], Manifest] = {}
        # stem -> (relative offsets, positions) of its offset index
        self._indexes: OrderedDict[str, tuple[list[int], list[int]]] = OrderedDict()
        # stem -> (max timestamps, relative offsets) of its time index
        self._time_indexes: OrderedDict[str, tuple[list[int], list[int]]] = OrderedDict()

    def manifest(self, stream_id: str, partition: int, covering: int | None = None) -> Manifest:
        """The partition's manifest, read again if `covering` lies past the cached one."""
        key = (stream_id, partition)
        with self._lock:
            cached = self._manifest_cache.get(key)
        if cached is not None and (covering is None or covering < cached.end_offset):
            return cached
        manifest, _ = self._manifests.read(stream_id, partition)
        manifest = manifest or Manifest(stream_id, partition, 0)
        with self._lock:
            self._manifest_cache[key] = manifest
        return manifest

    def refresh(self, stream_id: str, partition: int) -> Manifest:
        """The partition's manifest as the archive holds it now."""
        manifest, _ = self._manifests.read(stream_id, partition)
        manifest = manifest or Manifest(stream_id, partition, 0)
        with self._lock:
            self._manifest_cache[(stream_id, partition)] = manifest
        return manifest

    def forget(self, stream_id: str) -> None:
        with self._lock:
            for key in [k for k in self._manifest_cache if k[0] == stream_id]:
                del self._manifest_cache[key]

    def read_offsets(
        self, stream_id: str, partition: int, offsets: Sequence[int]
    ) -> dict[int, Record]:
        """The archived records at these offsets; offsets the archive lacks are absent."""
        wanted = sorted(set(offsets))
        if not wanted:
            return {}
        manifest = self.manifest(stream_id, partition, covering=wanted[-1])
        if any(manifest.pending_tail(offset) for offset in wanted):
            manifest = self.refresh(stream_id, partition)  # a pending tail may be filled since
        by_segment: dict[SegmentEntry, list[int]] = {}
        for offset in wanted:
            entry = manifest.segment_for(offset)
            if entry is not None:
                by_segment.setdefault(entry, []).append(offset)
        found: dict[int, Record] = {}
        for entry, segment_offsets in by_segment.items():
            found |= self._read_segment(entry.stem(stream_id, partition), entry, segment_offsets)
        return found

    def offset_for_time(
        self, stream_id: str, partition: int, timestamp_ms: int, below: int
    ) -> int | None:
        """The first archived offset below `below` whose record's timestamp is at or after
        `timestamp_ms`; None if there is none (the answer then lies at or past `below`).

        Exact, as the local log's lookup is, even where producers' clocks stepped back:
        a segment is scanned only if its largest timestamp reaches the time, and within it
        from the last time-index entry that promises every record before it is older.
        """
        manifest = self.manifest(stream_id, partition)
        for entry in manifest.segments:
            if entry.base_offset >= below:
                break
            if entry.max_timestamp_ms is None or entry.max_timestamp_ms < timestamp_ms:
                continue
            stem = entry.stem(stream_id, partition)
            found = self._first_at_or_after(stem, entry, timestamp_ms)
            if found is not None:
                return found if found < below else None
        return None

    def _first_at_or_after(self, stem: str, entry: SegmentEntry, timestamp_ms: int) -> int | None:
        timestamps, time_relatives = self._time_index(stem, entry)
        i = bisect.bisect_left(timestamps, timestamp_ms) - 1  # the last entry below the time
        start = entry.base_offset + (time_relatives[i] if i >= 0 else 0)
        relatives, positions = self._index(stem, entry)
        j = bisect.bisect_right(relatives, start - entry.base_offset) - 1
        position = positions[j] if j >= 0 else 0
        key = layout.segment_log(stem)
        while position < entry.bytes:
            header = read_header(
                self._cache.read(key, entry.bytes, position, position + BATCH_HEADER.size)
            )
            if header.next_offset > start and header.max_timestamp_ms >= timestamp_ms:
                batch = self._cache.read(key, entry.bytes, position, position + header.size)
                _, records = decode_batch(batch)
                for record in records:
                    if record.offset >= start and record.timestamp_ms >= timestamp_ms:
                        return record.offset
            position += header.size
        return None

    def _read_segment(
        self, stem: str, entry: SegmentEntry, offsets: list[int]
    ) -> dict[int, Record]:
        """`offsets` sorted: batches are read forward only, each at most once."""
        relatives, positions = self._index(stem, entry)
        key = layout.segment_log(stem)
        wanted = set(offsets)
        found: dict[int, Record] = {}
        position = 0
        for offset in offsets:
            if offset in found:
                continue
            i = bisect.bisect_right(relatives, offset - entry.base_offset) - 1
            position = max(position, positions[i] if i >= 0 else 0)
            while position < entry.bytes:
                header = read_header(
                    self._cache.read(key, entry.bytes, position, position + BATCH_HEADER.size)
                )
                if header.next_offset <= offset:
                    position += header.size
                    continue
                batch = self._cache.read(key, entry.bytes, position, position + header.size)
                _, records = decode_batch(batch)
                found |= {r.offset: r for r in records if r.offset in wanted}
                position += header.size
                break
        return found

    def _index(self, stem: str, entry: SegmentEntry) -> tuple[list[int], list[int]]:
        with self._lock:
            cached = self._indexes.get(stem)
            if cached is not None:
                self._indexes.move_to_end(stem)
                return cached
        data = self._manifests.store.get_bytes(layout.segment_index(stem), 0, entry.index_bytes)
        usable = len(data) - len(data) % _INDEX_ENTRY.size
        relatives, positions = [], []
        for relative, position in _INDEX_ENTRY.iter_unpack(data[:usable]):
            relatives.append(relative)
            positions.append(position)
        with self._lock:
            self._indexes[stem] = (relatives, positions)
            while len(self._indexes) > _MAX_CACHED_INDEXES:
                self._indexes.popitem(last=False)
        return relatives, positions

    def _time_index(self, stem: str, entry: SegmentEntry) -> tuple[list[int], list[int]]:
        with self._lock:
            cached = self._time_indexes.get(stem)
            if cached is not None:
                self._time_indexes.move_to_end(stem)
                return cached
        if entry.time_index_bytes == 0:
            return [], []
        data = self._manifests.store.get_bytes(
            layout.segment_time_index(stem), 0, entry.time_index_bytes
        )
        usable = len(data) - len(data) % _TIME_INDEX_ENTRY.size
        timestamps, relatives = [], []
        for timestamp_ms, relative in _TIME_INDEX_ENTRY.iter_unpack(data[:usable]):
            timestamps.append(timestamp_ms)
            relatives.append(relative)
        with self._lock:
            self._time_indexes[stem] = (timestamps, relatives)
            while len(self._time_indexes) > _MAX_CACHED_INDEXES:
                self._time_indexes.popitem(last=False)
        return timestamps, relatives
