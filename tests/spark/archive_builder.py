"""Real archives for the Spark tests, made the way TideMQ makes them: records appended to
a `PartitionLog`, segments sealed by `roll()`, each sealed segment's three files uploaded
to an object store (a `LocalDirStore` unless another is given) under the keys of
`storage_nodes.archive.layout`, listed by `Manifests.update`, with `stream.json` and the
`_names/` entry beside them (docs/formats.md, "The archive").

    archive = Archive(tmp_path)
    orders = archive.create_stream("orders", partitions=2)
    orders.add_segment(0, [[record, record], [record]])   # batches of one segment
    orders.written                                        # every record, with its offset
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import google_crc32c
import orjson

from storage_nodes.archive import layout
from storage_nodes.archive.local_store import LocalDirStore
from storage_nodes.archive.manifest import Manifest, Manifests, SegmentEntry
from storage_nodes.archive.object_store import ObjectStore
from storage_nodes.log.partition_log import LogConfig, PartitionLog, SegmentInfo
from storage_nodes.log.record import MessageAttribute, RecordIn

DEFAULT_ACCOUNT = "123456789012"
WRITER_EPOCH = 1
_CONFIG = LogConfig(durability="none", segment_max_bytes=1 << 30)


@dataclass(frozen=True)
class Written:
    """A record as the archive holds it: where it went, and what was appended."""

    account_id: str
    name: str
    partition: int
    offset: int
    record: RecordIn

    def row(self) -> tuple[object, ...]:
        """What the data source returns for it, column for column (the timestamp in
        ms, the attributes as a sorted list of (name, (type, string, binary)))."""
        r = self.record
        attributes = sorted(
            (name, (a.data_type, a.string_value, a.binary_value))
            for name, a in r.attributes.items()
        )
        return (
            self.account_id, self.name, self.partition, self.offset, r.timestamp_ms,
            r.message_id, r.group_id, r.dedup_id, attributes, r.body,
        )  # fmt: skip


@dataclass
class ArchivedStream:
    archive: Archive
    stream_id: str
    account_id: str
    kind: str
    name: str
    partitions: int
    written: list[Written] = field(default_factory=list)
    _uploaded: dict[int, set[int]] = field(default_factory=dict)

    def add_segment(
        self, partition: int, batches: Sequence[Sequence[RecordIn]]
    ) -> list[SegmentEntry]:
        """Appends the batches to the partition's log, seals the segment and tiers it;
        returns the manifest entries added."""
        sealed = asyncio.run(self._append_and_roll(partition, batches))
        return self.tier(partition, sealed)

    def tier(self, partition: int, sealed: Iterable[SegmentInfo]) -> list[SegmentEntry]:
        """Uploads the sealed segments not uploaded yet and lists them in the manifest."""
        done = self._uploaded.setdefault(partition, set())
        entries = []
        for info in sealed:
            if info.base_offset in done:
                continue
            stem = layout.segment_stem(self.stream_id, partition, info.base_offset, info.end_offset)
            store = self.archive.store
            store.put_file(layout.segment_log(stem), info.log_path)
            store.put_file(layout.segment_index(stem), info.offset_index_path)
            store.put_file(layout.segment_time_index(stem), info.time_index_path)
            entries.append(
                SegmentEntry(
                    base_offset=info.base_offset,
                    end_offset=info.end_offset,
                    first_timestamp_ms=info.first_timestamp_ms,
                    max_timestamp_ms=info.max_timestamp_ms,
                    bytes=info.log_path.stat().st_size,
                    index_bytes=info.offset_index_path.stat().st_size,
                    time_index_bytes=info.time_index_path.stat().st_size,
                    crc32c=f"{google_crc32c.value(info.log_path.read_bytes()):08x}",
                    writer_epoch=WRITER_EPOCH,
                )
            )
            done.add(info.base_offset)
        if entries:
            Manifests(store).update(
                self.stream_id,
                partition,
                WRITER_EPOCH,
                lambda m: replace(m, segments=(*m.segments, *entries)),
            )
        return entries

    def manifest(self, partition: int) -> Manifest:
        manifest, _ = Manifests(self.archive.store).read(self.stream_id, partition)
        assert manifest is not None
        return manifest

    def mark_deleted(self, deleted_ms: int = 1_764_003_600_000) -> None:
        body = {"format": 1, "deleted_ms": deleted_ms, "delete_after_ms": deleted_ms + 86_400_000}
        self.archive.store.put_bytes(layout.deletion_marker(self.stream_id), orjson.dumps(body))

    def rows(self, partition: int | None = None) -> list[tuple[object, ...]]:
        return sorted(
            (w.row() for w in self.written if partition is None or w.partition == partition),
            key=lambda row: (row[2], row[3]),
        )

    async def _append_and_roll(
        self, partition: int, batches: Sequence[Sequence[RecordIn]]
    ) -> list[SegmentInfo]:
        directory = self.archive.logs / self.stream_id / str(partition)
        directory.mkdir(parents=True, exist_ok=True)
        log = await PartitionLog.open(directory, _CONFIG)
        try:
            for batch in batches:
                base = await log.append(batch)
                self.written += [
                    Written(self.account_id, self.name, partition, base + i, record)
                    for i, record in enumerate(batch)
                ]
            await log.roll()
            return log.sealed_segments()
        finally:
            await log.close()


class Archive:
    """An archive in `store` (by default a local directory, `root/archive`), with the
    logs it was made from under `root/logs`."""

    def __init__(self, root: Path, store: ObjectStore | None = None) -> None:
        self.store = store or LocalDirStore(root / "archive")
        self.logs = root / "logs"

    @property
    def url(self) -> str:
        return self.store.url

    def create_stream(
        self,
        name: str,
        *,
        partitions: int = 1,
        account_id: str = DEFAULT_ACCOUNT,
        kind: str = "queue",
        created_ms: int = 1_764_000_000_000,
        stream_id: str | None = None,
    ) -> ArchivedStream:
        stream_id = stream_id or uuid.uuid4().hex[:16]
        descriptor = orjson.dumps(
            {
                "format": 1,
                "stream_id": stream_id,
                "account_id": account_id,
                "kind": kind,
                "name": name,
                "partitions": partitions,
                "created_ms": created_ms,
            }
        )
        self.store.put_bytes(layout.stream_descriptor(stream_id), descriptor)
        self.store.put_bytes(
            layout.name_entry(account_id, kind, name, created_ms, stream_id), descriptor
        )
        return ArchivedStream(self, stream_id, account_id, kind, name, partitions)


def record(
    index: int,
    *,
    timestamp_ms: int = 1_764_000_000_000,
    body: bytes | None = None,
    group_id: str | None = None,
    dedup_id: str | None = None,
    attributes: dict[str, MessageAttribute] | None = None,
) -> RecordIn:
    """A record with a message id and body derived from `index`."""
    return RecordIn(
        message_id=f"m-{index:08d}-{uuid.UUID(int=index)}",
        timestamp_ms=timestamp_ms,
        body=body if body is not None else f"body {index}".encode(),
        group_id=group_id,
        dedup_id=dedup_id,
        attributes=attributes or {},
    )
