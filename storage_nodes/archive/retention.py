"""The archive's own retention: segments older than it leave the manifest, then the store.

By default the archive keeps everything (for analytics). With a retention set, the oldest
segments whose newest message is older than it are first removed from the manifest
(under fencing, like every manifest change), and only then are their objects deleted, so
a reader never finds a listed segment missing. A crash between the two leaves objects no
manifest lists, which readers ignore.
"""

from __future__ import annotations

import logging

from storage_nodes.archive import layout
from storage_nodes.archive.manifest import Manifest, Manifests, SegmentEntry

log = logging.getLogger(__name__)


def expire(
    manifests: Manifests, stream_id: str, partition: int, writer_epoch: int, before_ms: int
) -> int:
    """Removes the oldest segments whose every message is older than `before_ms`; returns
    how many went. Blocking, as the store is."""
    expired: list[SegmentEntry] = []

    def without_expired(manifest: Manifest) -> Manifest:
        kept = list(manifest.segments)
        expired.clear()
        while kept and (kept[0].max_timestamp_ms or 0) < before_ms:
            expired.append(kept.pop(0))
        return Manifest(stream_id, partition, manifest.writer_epoch, tuple(kept))

    current, _ = manifests.read(stream_id, partition)
    if current is None or not current.segments:
        return 0
    if (current.segments[0].max_timestamp_ms or 0) >= before_ms:
        return 0  # nothing to do: no manifest write
    manifests.update(stream_id, partition, writer_epoch, without_expired)
    for entry in expired:
        stem = entry.stem(stream_id, partition)
        for key in (
            layout.segment_log(stem),
            layout.segment_index(stem),
            layout.segment_time_index(stem),
        ):
            manifests.store.delete(key)
    if expired:
        log.info(
            "archive %s: %d segments of %s/%d past the archive's retention removed",
            manifests.store.url,
            len(expired),
            stream_id,
            partition,
        )
    return len(expired)
