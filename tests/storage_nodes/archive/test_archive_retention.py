"""The archive's own retention: old segments leave the manifest, then the store."""

from __future__ import annotations

from pathlib import Path

from control_plane.clock import ManualClock
from storage_nodes.archive import layout
from storage_nodes.archive.local_store import LocalDirStore
from storage_nodes.archive.manifest import Manifests
from storage_nodes.archive.tiering import Tiering, TieringConfig
from storage_nodes.log.partition_log import LogConfig, PartitionLog
from storage_nodes.node import RecordIn

STREAM = "00112233445566aa"
HOUR_MS = 3_600_000


async def test_segments_past_the_archive_retention_go(tmp_path: Path) -> None:
    clock = ManualClock(start_ms=100 * HOUR_MS)
    store = LocalDirStore(tmp_path / "archive")
    manifests = Manifests(store)
    config = TieringConfig(
        writer_epoch=1,
        archive_retention_ms=10 * HOUR_MS,
        retention_check_interval_ms=0,
        local_retention_ms=1 << 40,  # keep local copies: only the archive's retention acts
    )
    tiering = Tiering(manifests, config, clock, tmp_path / "node")
    log = await PartitionLog.open(
        tmp_path / "node" / "streams" / STREAM / "0", LogConfig(durability="none")
    )
    for hours_ago in (30, 20, 5, 1):  # one segment each
        stamp = clock.now_ms() - hours_ago * HOUR_MS
        await log.append([RecordIn(message_id=f"m{hours_ago}", timestamp_ms=stamp, body=b"x")])
        await log.roll()
    await tiering.tick({(STREAM, 0): log})
    manifest, _ = manifests.read(STREAM, 0)
    assert manifest is not None
    assert [s.base_offset for s in manifest.segments] == [2, 3]
    assert manifest.start_offset == 2
    gone = [layout.segment_stem(STREAM, 0, base, base + 1) for base in (0, 1)]
    assert all(store.head(layout.segment_log(stem)) is None for stem in gone)
    assert store.head(layout.segment_log(layout.segment_stem(STREAM, 0, 2, 3))) is not None

    clock.advance(6 * HOUR_MS)  # the 5-hour-old segment is now 11 hours old
    await tiering.tick({(STREAM, 0): log})
    manifest, _ = manifests.read(STREAM, 0)
    assert manifest is not None
    assert [s.base_offset for s in manifest.segments] == [3]
    await log.close()
