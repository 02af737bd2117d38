"""`spark.readStream.format("tidemq")`: newly tiered segments as micro-batches.

A micro-batch's offsets are, per partition, the next offset not yet read:

    {"stream_id": "3f2a9c0d1e4b5a6c", "offsets": {"0": 4096, "1": 2048}}

Spark checkpoints each batch's end before running it and re-runs it with the same
offsets after a failure; archived segments never change, so a re-run reads the same
records, and a sink that is exactly-once (files, Delta, foreachBatch keyed by batch id)
sees every record once. Ends always fall on segment boundaries: a segment is read in the
micro-batch after its manifest lists it, whole.

The stream is chosen when the query first starts (the newest of the name, as a batch
read does) and is kept in the offsets: a restarted query continues the same stream even
if the queue was deleted and created again meanwhile. Records removed from the archive
before the query read them (retention) are skipped, with a warning.

Admission control: `max_segments_per_trigger` bounds a micro-batch (as Spark's
`maxFilesPerTrigger`); the engine may also ask for a number of rows or bytes, which is
honoured in whole segments (at least one). `Trigger.AvailableNow` reads what the
manifests list when the query starts, then stops.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadLimit,
    ReadMaxBytes,
    ReadMaxFiles,
    ReadMaxRows,
    SupportsTriggerAvailableNow,
)
from pyspark.sql.types import StructType

from spark.archive_reader import (
    StreamInfo,
    find_stream,
    plan_slices,
    read_manifests,
    stream_by_id,
)
from spark.errors import ArchiveFormatError
from spark.options import ReadOptions
from spark.segment_partition import SegmentPartition, open_archive, read_partition
from storage_nodes.archive.manifest import Manifest, SegmentEntry
from storage_nodes.archive.object_store import ObjectStore

log = logging.getLogger(__name__)

Offsets = dict[int, int]


class TideMQStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    def __init__(self, options: ReadOptions, schema: StructType) -> None:
        self.options = options
        self.schema = schema
        self._streams: dict[str, StreamInfo] = {}
        self._available_now = False
        self._target: Offsets | None = None  # Trigger.AvailableNow: where to stop
        self._latest: dict[str, Any] | None = None

    # -- Spark's hooks ------------------------------------------------------------------

    def initialOffset(self) -> dict[str, Any]:  # noqa: N802 (Spark's names)
        store = self._store()
        stream = find_stream(store, self.options)
        self._streams[stream.stream_id] = stream
        manifests = read_manifests(store, stream, self.options.bounds)
        offsets = {
            partition: (
                manifests[partition].readable_end_offset
                if self.options.starting_position == "latest" and partition in manifests
                else self.options.bounds.start_offset
            )
            for partition in self._partitions(stream)
        }
        return _encode(stream.stream_id, offsets)

    def latestOffset(self, start: dict[str, Any], limit: ReadLimit) -> dict[str, Any]:  # noqa: N802
        stream_id, offsets = _decode(start)
        manifests = read_manifests(self._store(), self._stream(stream_id), self.options.bounds)
        available = {p: m.readable_end_offset for p, m in manifests.items()}
        self._latest = _encode(stream_id, {**offsets, **available})
        if self._available_now and self._target is None:
            self._target = dict(available)  # what was archived when the query started
        if self._target is not None:
            available = {p: min(end, self._target.get(p, 0)) for p, end in available.items()}
        # Oldest first across partitions (by first timestamp, then offset).
        pending = sorted(
            (
                (partition, segment)
                for partition, manifest in manifests.items()
                for segment in manifest.segments
                if offsets.get(partition, 0) < segment.end_offset <= available[partition]
            ),
            key=lambda item: (item[1].first_timestamp_ms or 0, item[1].base_offset, item[0]),
        )
        ends = dict(offsets)
        for partition, segment in _admitted(pending, limit):
            ends[partition] = max(ends.get(partition, 0), segment.end_offset)
        return _encode(stream_id, ends)

    def getDefaultReadLimit(self) -> ReadLimit:  # noqa: N802
        if self.options.max_segments_per_trigger is not None:
            return ReadMaxFiles(self.options.max_segments_per_trigger)
        return ReadAllAvailable()

    def reportLatestOffset(self) -> dict[str, Any] | None:  # noqa: N802
        return self._latest

    def prepareForTriggerAvailableNow(self) -> None:  # noqa: N802
        self._available_now = True

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> Sequence[InputPartition]:
        stream_id, starts = _decode(start)
        end_id, ends = _decode(end)
        if end_id != stream_id:
            raise ArchiveFormatError(f"a micro-batch from stream {stream_id} to {end_id}")
        store = self._store()
        stream = self._stream(stream_id)
        manifests = read_manifests(store, stream, self.options.bounds)
        partitions: list[InputPartition] = []
        for partition, end_offset in sorted(ends.items()):
            start_offset = starts.get(partition, 0)
            manifest = manifests.get(partition)
            if end_offset <= start_offset or manifest is None:
                continue
            _warn_if_removed(stream_id, partition, start_offset, manifest)
            bounds = self.options.bounds.with_offsets(start_offset, end_offset)
            slices = plan_slices(
                store, stream_id, {partition: manifest}, bounds, self.options.max_split_bytes
            )
            partitions += [SegmentPartition.of(stream, s) for s in slices]
        return partitions

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return read_partition(self.options, self.schema, partition)

    def commit(self, end: dict[str, Any]) -> None:
        log.debug("committed %s", end)

    # -- helpers ------------------------------------------------------------------------

    def _store(self) -> ObjectStore:
        return open_archive(self.options.url, self.options.s3)

    def _stream(self, stream_id: str) -> StreamInfo:
        if stream_id not in self._streams:
            self._streams[stream_id] = stream_by_id(self._store(), stream_id)
        return self._streams[stream_id]

    def _partitions(self, stream: StreamInfo) -> list[int]:
        return [p for p in range(stream.partitions) if self.options.bounds.admits_partition(p)]


def _admitted(
    pending: Sequence[tuple[int, SegmentEntry]], limit: ReadLimit
) -> Iterator[tuple[int, SegmentEntry]]:
    """The oldest pending segments that fit `limit` (always at least one)."""
    used_rows = used_bytes = 0
    for used_segments, (partition, segment) in enumerate(pending, 1):
        used_rows += segment.records
        used_bytes += segment.bytes
        over = (
            (isinstance(limit, ReadMaxFiles) and used_segments > limit.max_files)
            or (isinstance(limit, ReadMaxRows) and used_rows > limit.max_rows)
            or (isinstance(limit, ReadMaxBytes) and used_bytes > limit.max_bytes)
        )
        if over and used_segments > 1:
            return
        yield partition, segment


def _warn_if_removed(stream_id: str, partition: int, start: int, manifest: Manifest) -> None:
    if start < manifest.start_offset:
        log.warning(
            "stream %s partition %d: offsets %d..%d left the archive before they were read",
            stream_id, partition, start, manifest.start_offset,
        )  # fmt: skip


def _encode(stream_id: str, offsets: Mapping[int, int]) -> dict[str, Any]:
    return {"stream_id": stream_id, "offsets": {str(p): offsets[p] for p in sorted(offsets)}}


def _decode(offset: Mapping[str, Any]) -> tuple[str, Offsets]:
    try:
        return str(offset["stream_id"]), {int(p): int(o) for p, o in offset["offsets"].items()}
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ArchiveFormatError(f"not a tidemq streaming offset: {offset!r}") from exc
