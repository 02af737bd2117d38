"""File names inside a partition directory.

A segment is three files named by its base offset, zero-padded to 20 digits so that a
plain ``ls`` lists them in offset order (2**63 has 19 digits, as in Kafka)::

    00000000000000000000.log        the batches (record_batch.py)
    00000000000000000000.index      sparse offset index (offset_index.py)
    00000000000000000000.timeindex  sparse time index (time_index.py)

Index files are rewritten through a ``.tmp`` sibling that is renamed over the real name,
so a crash leaves either the old or the new file plus, at worst, a stray ``.tmp`` that
recovery deletes.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "INDEX_SUFFIX",
    "LOG_SUFFIX",
    "TIME_INDEX_SUFFIX",
    "TMP_SUFFIX",
    "base_offset_of",
    "index_path",
    "log_path",
    "time_index_path",
]

LOG_SUFFIX = ".log"
INDEX_SUFFIX = ".index"
TIME_INDEX_SUFFIX = ".timeindex"
TMP_SUFFIX = ".tmp"
_DIGITS = 20


def _name(base_offset: int, suffix: str) -> str:
    if base_offset < 0:
        raise ValueError(f"negative base offset {base_offset}")
    return f"{base_offset:0{_DIGITS}d}{suffix}"


def log_path(directory: Path, base_offset: int) -> Path:
    return directory / _name(base_offset, LOG_SUFFIX)


def index_path(directory: Path, base_offset: int) -> Path:
    return directory / _name(base_offset, INDEX_SUFFIX)


def time_index_path(directory: Path, base_offset: int) -> Path:
    return directory / _name(base_offset, TIME_INDEX_SUFFIX)


def base_offset_of(path: Path) -> int | None:
    """The base offset a segment file's name encodes, or None if it is not one of ours."""
    stem, suffix = path.stem, path.suffix
    if suffix not in (LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX):
        return None
    if len(stem) != _DIGITS or not stem.isdigit() or not stem.isascii():
        return None
    return int(stem)
