"""A partition's manifest: which sealed segments the archive holds, and who wrote it last.

The manifest is the archive's one source of truth for a partition: a segment object that
it does not list does not exist for readers (an upload that a crash cut short before the
manifest named it is never read, and is overwritten by the retry). Its JSON is versioned
(`format`) and documented in docs/formats.md.

Pending tails. A storage node that dies (or loses its lease while stopped) may leave
records on its disk that the archive does not hold yet: its un-archived tail. The next
owner records the offsets that tail may use, `[base_offset, end_offset)` up to the
dead tenure's reservation (tidemq/cluster/tenures.py), as a *pending tail*, and starts
its own log after it, so that no offset is ever given twice. A pending tail is filled
by recovered segments once its records are found (on a follower, in the object store,
or on the old node when it returns); what it held beyond them becomes a gap. So the
segments of a manifest may leave gaps between them (offsets no record was ever given);
an offset in a pending tail has a record that cannot be read yet.

Fencing: every manifest carries the `writer_epoch` of the writer that last replaced it. A
writer replaces it only with a conditional put over the version it read, and never when
the stored epoch is above its own (`Fenced`), so a writer that lost its partition to a
newer one can never overwrite the newer one's manifest, however late its write arrives.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
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


@dataclass(frozen=True, slots=True, order=True)
class PendingTail:
    """Offsets a failed tenure may have written and the archive does not hold yet."""

    base_offset: int
    end_offset: int  # exclusive: the failed tenure's reserved end
    lease_epoch: int  # of the tenure that may have written them
    # The node that held that tenure ("" if not recorded): for an operator who gives the
    # tail up (tail_give_ups.py). Not part of the tail's identity.
    node_id: str = field(default="", compare=False)

    def __contains__(self, offset: object) -> bool:
        return isinstance(offset, int) and self.base_offset <= offset < self.end_offset


@dataclass(frozen=True, slots=True)
class Manifest:
    stream_id: str
    partition: int
    writer_epoch: int
    segments: tuple[SegmentEntry, ...] = ()
    pending: tuple[PendingTail, ...] = ()  # sorted; none overlaps a segment
    # The end of the last pending tail filled: a tail's offsets past its last record
    # found are a gap, which the end must not fall back over (the next tenure's
    # segments begin after the whole tail).
    filled_end: int = 0
    # The lease tenure that took the partition over last, and its node: the next owner
    # names that node in the tenure's pending tail.
    tenure_epoch: int = 0
    tenure_node: str = ""

    @property
    def end_offset(self) -> int:
        """One past the last offset the archive holds, awaits, or skipped as a filled
        tail's gap (0 if nothing)."""
        ends = [self.segments[-1].end_offset] if self.segments else [0]
        ends += [tail.end_offset for tail in self.pending]
        return max(*ends, self.filled_end)

    @property
    def readable_end_offset(self) -> int:
        """Where what a reader can get in order ends: the first pending tail, if any, else
        the end (a streaming reader does not pass a tail that may still be filled)."""
        return self.pending[0].base_offset if self.pending else self.end_offset

    def pending_tail(self, offset: int) -> PendingTail | None:
        """The pending tail `offset` lies in, if any."""
        return next((tail for tail in self.pending if offset in tail), None)

    def with_pending(self, tail: PendingTail) -> Manifest:
        """`tail` added (a no-op if it is there already); it must start at the end."""
        if tail in self.pending:
            return self
        if tail.base_offset < self.end_offset:
            raise ValueError(
                f"a pending tail at {tail.base_offset} below the end {self.end_offset}"
            )
        return replace(self, pending=(*self.pending, tail))

    def filled(self, tail: PendingTail, entries: tuple[SegmentEntry, ...]) -> Manifest:
        """`tail` replaced by the recovered segments `entries` (inside it, in order): the
        rest of its offsets become a gap. A no-op if it is not pending any more."""
        if tail not in self.pending:
            return self
        for entry in entries:
            if not (tail.base_offset <= entry.base_offset < entry.end_offset <= tail.end_offset):
                raise ValueError(f"segment {entry.base_offset}-{entry.end_offset} is not in {tail}")
        segments = tuple(sorted((*self.segments, *entries), key=lambda s: s.base_offset))
        pending = tuple(t for t in self.pending if t != tail)
        filled_end = max(self.filled_end, tail.end_offset)
        return replace(self, segments=segments, pending=pending, filled_end=filled_end)

    def given_up(self, tail: PendingTail) -> Manifest:
        """`tail` given up for lost (its node's disk is gone): all of its offsets become a
        gap, never written for readers. A no-op if it is not pending any more."""
        return self.filled(tail, ())

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
                "segments": [entry_json(s) for s in self.segments],
                "pending_tails": [
                    {
                        "base_offset": t.base_offset,
                        "end_offset": t.end_offset,
                        "lease_epoch": t.lease_epoch,
                        "node_id": t.node_id,
                    }
                    for t in self.pending
                ],
                "filled_end": self.filled_end,
                "tenure": {"lease_epoch": self.tenure_epoch, "node_id": self.tenure_node},
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
            segments = tuple(entry_from_json(s) for s in raw["segments"])
            pending = tuple(
                PendingTail(
                    int(t["base_offset"]),
                    int(t["end_offset"]),
                    int(t["lease_epoch"]),
                    str(t.get("node_id", "")),
                )
                for t in raw.get("pending_tails", ())
            )
            tenure = raw.get("tenure") or {}
            return cls(
                str(raw["stream_id"]),
                int(raw["partition"]),
                int(raw["writer_epoch"]),
                segments,
                pending,
                int(raw.get("filled_end", 0)),
                int(tenure.get("lease_epoch", 0)),
                str(tenure.get("node_id", "")),
            )
        except ManifestError:
            raise
        except (orjson.JSONDecodeError, AttributeError, KeyError, TypeError, ValueError) as exc:
            raise ManifestError(f"malformed manifest: {exc}") from exc


def entry_json(entry: SegmentEntry) -> dict[str, Any]:
    return {
        "base_offset": entry.base_offset,
        "end_offset": entry.end_offset,
        "records": entry.records,
        "first_timestamp_ms": entry.first_timestamp_ms,
        "max_timestamp_ms": entry.max_timestamp_ms,
        "bytes": entry.bytes,
        "index_bytes": entry.index_bytes,
        "time_index_bytes": entry.time_index_bytes,
        "crc32c": entry.crc32c,
        "writer_epoch": entry.writer_epoch,
    }


def entry_from_json(raw: Any) -> SegmentEntry:
    """KeyError, TypeError or ValueError for a malformed entry."""
    return SegmentEntry(
        base_offset=int(raw["base_offset"]),
        end_offset=int(raw["end_offset"]),
        first_timestamp_ms=raw["first_timestamp_ms"],
        max_timestamp_ms=raw["max_timestamp_ms"],
        bytes=int(raw["bytes"]),
        index_bytes=int(raw["index_bytes"]),
        time_index_bytes=int(raw["time_index_bytes"]),
        crc32c=str(raw["crc32c"]),
        writer_epoch=int(raw["writer_epoch"]),
    )


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
