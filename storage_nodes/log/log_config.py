"""Per-stream settings of a partition log (re-exported by ``partition_log``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

__all__ = ["DEFAULT_CONFIG", "Durability", "LogConfig"]

#: When an append counts as done:
#: ``"fsync"``: after its bytes were fsynced (concurrent appends share one fsync);
#: ``"interval"``: after they were written, fsynced within ``flush_interval_ms``;
#: ``"none"``: after they were written; fsynced only on roll and close.
Durability = Literal["fsync", "interval", "none"]

# Segment positions are 32-bit in the offset index; keep every batch start below 2 GiB.
_MAX_SEGMENT_BYTES = 2**31 - 1


@dataclass(frozen=True, slots=True)
class LogConfig:
    """Settings of one partition log; invalid values raise ``ValueError`` at creation."""

    durability: Durability = "fsync"
    flush_interval_ms: int = 200
    segment_max_bytes: int = 128 * 1024 * 1024
    segment_max_age_ms: int = 7 * 24 * 3600 * 1000
    index_interval_bytes: int = 4096
    # Under "fsync", a round of at most this many bytes is written from the event loop
    # (into the page cache) and synced by the kernel's AIO, without the I/O thread, where
    # Linux has it (storage_nodes/log/kernel_sync.py); 0: every round in the I/O thread.
    loop_sync_max_bytes: int = 256 * 1024

    def __post_init__(self) -> None:
        if self.durability not in get_args(Durability):
            raise ValueError(f"durability must be one of {get_args(Durability)}")
        if self.flush_interval_ms <= 0:
            raise ValueError("flush_interval_ms must be positive")
        if not 0 < self.segment_max_bytes <= _MAX_SEGMENT_BYTES:
            raise ValueError(f"segment_max_bytes must be in 1..{_MAX_SEGMENT_BYTES}")
        if self.segment_max_age_ms <= 0:
            raise ValueError("segment_max_age_ms must be positive")
        if self.index_interval_bytes <= 0:
            raise ValueError("index_interval_bytes must be positive")
        if self.loop_sync_max_bytes < 0:
            raise ValueError("loop_sync_max_bytes must be 0 or more")


DEFAULT_CONFIG = LogConfig()
