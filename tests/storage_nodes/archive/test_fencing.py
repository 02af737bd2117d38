"""The manifest is the archive's truth: a tiering node with a lower writer epoch never
changes what a newer one wrote, and objects no manifest lists are never read."""

from __future__ import annotations

from pathlib import Path

from control_plane.clock import ManualClock
from storage_nodes.archive import layout
from storage_nodes.archive.local_store import LocalDirStore
from storage_nodes.archive.manifest import Manifests
from storage_nodes.archive.remote_reads import ArchiveReader
from storage_nodes.archive.segment_cache import SegmentCache
from storage_nodes.archive.tiering import Tiering, TieringConfig
from storage_nodes.log.partition_log import LogConfig, PartitionLog
from storage_nodes.node import RecordIn

STREAM = "0123456789abcdef"


async def _log_with_segments(directory: Path, segments: int) -> PartitionLog:
    log = await PartitionLog.open(directory, LogConfig(durability="none"))
    for i in range(segments):
        await log.append([RecordIn(message_id=f"m{i}", timestamp_ms=1_000 + i, body=b"x" * 64)])
        await log.roll()
    return log


async def test_a_stale_writer_is_fenced_out(tmp_path: Path) -> None:
    manifests = Manifests(LocalDirStore(tmp_path / "archive"))
    clock = ManualClock()
    newer = Tiering(manifests, TieringConfig(writer_epoch=7), clock, tmp_path / "new")
    log = await _log_with_segments(tmp_path / "new" / "streams" / STREAM / "0", 2)
    await newer.tick({(STREAM, 0): log})
    written, _ = manifests.read(STREAM, 0)
    assert written is not None
    assert (written.writer_epoch, written.end_offset) == (7, 2)

    # An older node with more of the log (it kept writing after losing the partition).
    older = Tiering(manifests, TieringConfig(writer_epoch=6), clock, tmp_path / "old")
    stale = await _log_with_segments(tmp_path / "old" / "streams" / STREAM / "0", 4)
    await older.tick({(STREAM, 0): stale})
    assert manifests.read(STREAM, 0)[0] == written

    # The newer one goes on.
    await log.append([RecordIn(message_id="m9", timestamp_ms=2_000, body=b"y")])
    await log.roll()
    await newer.tick({(STREAM, 0): log})
    after, _ = manifests.read(STREAM, 0)
    assert after is not None
    assert (after.writer_epoch, after.end_offset) == (7, 3)
    await log.close()
    await stale.close()


async def test_an_upload_cut_short_leaves_no_trace(tmp_path: Path) -> None:
    """Objects a crash left without a manifest entry are never read, and are written again."""
    store = LocalDirStore(tmp_path / "archive")
    manifests = Manifests(store)
    log = await _log_with_segments(tmp_path / "node" / "streams" / STREAM / "0", 2)
    [first, second] = log.sealed_segments()
    stem = layout.segment_stem(STREAM, 0, first.base_offset, first.end_offset)
    store.put_bytes(layout.segment_log(stem), b"half of a segment")  # the crash
    reader = ArchiveReader(manifests, SegmentCache(store, tmp_path / "cache"))
    assert reader.read_offsets(STREAM, 0, [0, 1]) == {}, "nothing is listed, so nothing is read"

    segment_bytes = first.log_path.read_bytes()
    tiering = Tiering(manifests, TieringConfig(writer_epoch=1), ManualClock(), tmp_path / "node")
    await tiering.tick({(STREAM, 0): log})
    assert store.get_bytes(layout.segment_log(stem)) == segment_bytes
    assert second.end_offset == 2
    records = ArchiveReader(manifests, SegmentCache(store, tmp_path / "cache2")).read_offsets(
        STREAM, 0, [0, 1]
    )
    assert [records[o].message_id for o in (0, 1)] == ["m0", "m1"]
    await log.close()
