"""A partition's manifest: which sealed segments the archive holds, and who wrote it last.

The manifest is the archive's one source of truth for a partition: a segment object that
it does not list does not exist for readers (an upload that a crash cut short before the
manifest named it is never read, and is overwritten by the retry). Its JSON is versioned
(`format`) and documented in docs/formats.md.

Fencing: every manifest carries the `writer_epoch` of the writer that last replaced it. A
writer replaces it only with a conditional put over the version it read, and never when
the stored epoch is above its own (`Fenced`), so a writer that lost its partition to a
newer one can never overwrite the newer one's manifest, however late its write arrives.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import orjson

from storage_nodes.archive import layout
from storage_nodes.archive.object_store import ObjectNotFound, ObjectStore, PreconditionFailed

# A conditional put lost to a concurrent writer of the same or a lower epoch is retried.
_MAX_ATTEMPTS = 8


class Fenced(Exception):
    """A writer with a higher epoch owns the partition's manifest now."""


class ManifestError(ValueError):
    """A manifest that this version of TideMQ cannot read."""


@dataclass(frozen=True, slots=True)
class SegmentEntry:
    base_offset: int
    end_offset: int  # exclusive: the records are base_offset .. end_offset - 1
    first_timestamp_ms: int | None
    max_timestamp_ms: int | None
    bytes: int  # of the .seg object (the segment's .log)
    index_bytes: int
    time_index_bytes: int
    crc32c: str  # of the .seg object's bytes, 8 hex digits
    writer_epoch: int

    @property
    def records(self) -> int:
        return self.end_offset - self.base_offset

    def stem(self, stream_id: str, partition: int) -> str:
        return layout.segment_stem(stream_id, partition, self.base_offset, self.end_offset)


@dataclass(frozen=True, slots=True)
class Manifest:
    stream_id: str
    partition: int
    writer_epoch: int
    segments: tuple[SegmentEntry, ...] = ()

    @property
    def end_offset(self) -> int:
        """One past the last archived offset (0 if nothing is archived)."""
        return self.segments[-1].end_offset if self.segments else 0

    @property
    def start_offset(self) -> int:
        return self.segments[0].base_offset if self.segments else 0

    @property
    def total_bytes(self) -> int:
        return sum(s.bytes for s in self.segments)

    def segment_for(self, offset: int) -> SegmentEntry | None:
        """The archived segment holding `offset`, if any."""
        low, high = 0, len(self.segments)
        while low < high:
            middle = (low + high) // 2
            if self.segments[middle].end_offset <= offset:
                low = middle + 1
            else:
                high = middle
        if low < len(self.segments) and self.segments[low].base_offset <= offset:
            return self.segments[low]
        return None

    def to_json(self) -> bytes:
        return orjson.dumps(
            {
                "format": layout.FORMAT_VERSION,
                "stream_id": self.stream_id,
                "partition": self.partition,
                "writer_epoch": self.writer_epoch,
                "segments": [
                    {
                        "base_offset": s.base_offset,
                        "end_offset": s.end_offset,
                        "records": s.records,
                        "first_timestamp_ms": s.first_timestamp_ms,
                        "max_timestamp_ms": s.max_timestamp_ms,
                        "bytes": s.bytes,
                        "index_bytes": s.index_bytes,
                        "time_index_bytes": s.time_index_bytes,
                        "crc32c": s.crc32c,
                        "writer_epoch": s.writer_epoch,
                    }
                    for s in self.segments
                ],
            },
            option=orjson.OPT_INDENT_2,
        )

    @classmethod
    def from_json(cls, data: bytes) -> Manifest:
        try:
            raw: Any = orjson.loads(data)
            if raw.get("format") != layout.FORMAT_VERSION:
                raise ManifestError(
                    f"manifest format {raw.get('format')!r}: this TideMQ reads format "
                    f"{layout.FORMAT_VERSION}"
                )
            segments = tuple(
                SegmentEntry(
                    base_offset=int(s["base_offset"]),
                    end_offset=int(s["end_offset"]),
                    first_timestamp_ms=s["first_timestamp_ms"],
                    max_timestamp_ms=s["max_timestamp_ms"],
                    bytes=int(s["bytes"]),
                    index_bytes=int(s["index_bytes"]),
                    time_index_bytes=int(s["time_index_bytes"]),
                    crc32c=str(s["crc32c"]),
                    writer_epoch=int(s["writer_epoch"]),
                )
                for s in raw["segments"]
            )
            return cls(
                str(raw["stream_id"]), int(raw["partition"]), int(raw["writer_epoch"]), segments
            )
        except ManifestError:
            raise
        except (orjson.JSONDecodeError, AttributeError, KeyError, TypeError, ValueError) as exc:
            raise ManifestError(f"malformed manifest: {exc}") from exc


class Manifests:
    """Reading and replacing manifests in one object store (blocking, as the store is)."""

    def __init__(self, store: ObjectStore) -> None:
        self.store = store

    def read(self, stream_id: str, partition: int) -> tuple[Manifest | None, str | None]:
        """The partition's manifest and its etag; (None, None) if nothing is archived."""
        try:
            data, etag = self.store.get_with_etag(layout.manifest(stream_id, partition))
        except ObjectNotFound:
            return None, None
        return Manifest.from_json(data), etag

    def update(
        self,
        stream_id: str,
        partition: int,
        writer_epoch: int,
        change: Callable[[Manifest], Manifest],
    ) -> Manifest:
        """Replaces the manifest with `change(current)`, stamped with `writer_epoch`.

        Raises Fenced if a writer of a higher epoch wrote it; a concurrent replacement by
        a writer of the same or a lower epoch is read again and `change` applied to it.
        """
        key = layout.manifest(stream_id, partition)
        for _ in range(_MAX_ATTEMPTS):
            current, etag = self.read(stream_id, partition)
            if current is not None and current.writer_epoch > writer_epoch:
                raise Fenced(
                    f"{key}: written at epoch {current.writer_epoch}, above this writer's "
                    f"{writer_epoch}"
                )
            base = current or Manifest(stream_id, partition, writer_epoch)
            updated = replace(change(base), writer_epoch=writer_epoch)
            try:
                if etag is None:
                    self.store.put_bytes(key, updated.to_json(), if_none_match=True)
                else:
                    self.store.put_bytes(key, updated.to_json(), if_match=etag)
            except PreconditionFailed:
                continue
            return updated
        raise PreconditionFailed(f"{key}: replaced concurrently {_MAX_ATTEMPTS} times")
