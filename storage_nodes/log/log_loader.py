"""Opening a partition directory: find the segments, sweep debris, recover the tail."""

from __future__ import annotations

import logging
import shutil
from itertools import pairwise
from pathlib import Path

from storage_nodes.log.file_names import LOG_SUFFIX, TMP_SUFFIX, base_offset_of
from storage_nodes.log.fileio import fsync_directory
from storage_nodes.log.segment import LogSegment

__all__ = ["load_segments", "start_log_at"]

log = logging.getLogger(__name__)


def load_segments(directory: Path, index_interval_bytes: int, now_ms: int) -> list[LogSegment]:
    """The segments of the partition in ``directory``, oldest first (worker thread).

    Creates the directory and an empty first segment if there is none. Deletes
    leftovers of interrupted operations: ``.tmp`` index rewrites, and index files whose
    ``.log`` is gone (retention removes the ``.log`` first, oldest segment first, so a
    crash mid-deletion leaves a contiguous suffix plus such strays). Every segment but
    the last is opened as sealed, ending where its successor begins; the last one is
    recovered (torn tail cut) and becomes the active segment.
    """
    directory.mkdir(parents=True, exist_ok=True)
    bases = _sweep(directory)
    if not bases:
        segment = LogSegment(directory, 0, index_interval_bytes, new=True)
        segment.create_files()
        return [segment]
    segments = [
        LogSegment.open_sealed(directory, base, end, index_interval_bytes)
        for base, end in pairwise(bases)
    ]
    segments.append(LogSegment.recover(directory, bases[-1], index_interval_bytes, now_ms))
    log.info(
        "opened %s: %d segments, offsets %d..%d",
        directory, len(segments), bases[0], segments[-1].next_offset,
    )  # fmt: skip
    return segments


def start_log_at(directory: Path, base_offset: int, index_interval_bytes: int) -> None:
    """Replaces whatever log is in ``directory`` with an empty one whose first offset is
    ``base_offset`` (worker thread): a partition taken over from another node, whose
    earlier offsets are in the archive. The log must not be open."""
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    LogSegment(directory, base_offset, index_interval_bytes, new=True).create_files()
    fsync_directory(directory)
    fsync_directory(directory.parent)


def _sweep(directory: Path) -> list[int]:
    """Base offsets that have a ``.log``, sorted; removes debris around them."""
    logs: set[int] = set()
    others: list[tuple[int, Path]] = []
    removed = False
    for path in directory.iterdir():
        if path.name.endswith(TMP_SUFFIX):
            log.warning("%s: removing an interrupted index rewrite", path)
            path.unlink(missing_ok=True)
            removed = True
            continue
        base = base_offset_of(path)
        if base is None:
            log.warning("%s: not a segment file; leaving it alone", path)
        elif path.suffix == LOG_SUFFIX:
            logs.add(base)
        else:
            others.append((base, path))
    for base, path in others:
        if base not in logs:
            log.warning("%s: index without its log (interrupted delete); removing it", path)
            path.unlink(missing_ok=True)
            removed = True
    if removed:
        fsync_directory(directory)
    return sorted(logs)
