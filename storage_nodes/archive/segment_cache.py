"""A bounded on-disk cache of archived bytes, in fixed-size chunks read ahead.

Reads below a partition's local start come from the object store with ranged GETs. A
read of one message fetches the whole chunk around it (`chunk_bytes`, the read-ahead),
so the messages after it (a redelivery burst, a move task, a replay walking forward) are
served from local disk. Chunks are files under one directory, evicted least recently
used first once their total passes `max_bytes`; what the directory holds survives a
restart (it is indexed again at start). Archived objects never change (a segment's key
names its offsets, and a re-upload writes the same bytes), so a cached chunk never goes
stale.

Thread-safe: readers run in worker threads; the index is guarded by one lock, and each
chunk file is written to a temporary name and renamed, so a reader never sees half.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
from collections import OrderedDict
from pathlib import Path

from storage_nodes.archive.object_store import ObjectStore

DEFAULT_CHUNK_BYTES = 1 << 20
DEFAULT_MAX_BYTES = 256 << 20


class SegmentCache:
    def __init__(
        self,
        store: ObjectStore,
        directory: Path,
        max_bytes: int = DEFAULT_MAX_BYTES,
        chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    ) -> None:
        self._store = store
        self._directory = directory
        self._max_bytes = max_bytes
        self._chunk_bytes = chunk_bytes
        self._lock = threading.Lock()
        self._chunks: OrderedDict[str, int] = OrderedDict()  # file name -> bytes, LRU first
        self._total_bytes = 0
        self.fetches = 0  # ranged GETs made, for tests and stats
        directory.mkdir(parents=True, exist_ok=True)
        for path in sorted(directory.iterdir(), key=lambda p: p.stat().st_mtime_ns):
            if path.name.endswith(".tmp"):
                path.unlink(missing_ok=True)
                continue
            self._chunks[path.name] = path.stat().st_size
            self._total_bytes += path.stat().st_size

    @property
    def total_bytes(self) -> int:
        return self._total_bytes

    def read(self, key: str, object_bytes: int, start: int, end: int) -> bytes:
        """Bytes `[start, end)` of the object `key`, whose size is `object_bytes`. Only
        those bytes are read from a cached chunk, not the whole chunk."""
        end = min(end, object_bytes)
        parts = []
        while start < end:
            index = start // self._chunk_bytes
            chunk_start = index * self._chunk_bytes
            stop = min(end, chunk_start + self._chunk_bytes)
            parts.append(
                self._chunk_slice(key, object_bytes, index, start - chunk_start, stop - chunk_start)
            )
            start = stop
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def _chunk_slice(self, key: str, object_bytes: int, index: int, low: int, high: int) -> bytes:
        """Bytes `[low, high)` of chunk `index`, fetched from the store if not cached."""
        name = f"{key.replace('/', '~')}.{index}"
        path = self._directory / name
        with self._lock:
            cached = name in self._chunks
            if cached:
                self._chunks.move_to_end(name)
        if cached:
            try:
                with path.open("rb") as file:
                    file.seek(low)
                    return file.read(high - low)
            except FileNotFoundError:  # evicted meanwhile, or removed by hand: fetch again
                with self._lock:
                    if name in self._chunks:
                        self._total_bytes -= self._chunks.pop(name)
        chunk_start = index * self._chunk_bytes
        chunk_end = min(chunk_start + self._chunk_bytes, object_bytes)
        data = self._store.get_bytes(key, chunk_start, chunk_end)
        self.fetches += 1
        tmp = self._directory / f"{name}.{secrets.token_hex(4)}.tmp"
        tmp.write_bytes(data)
        os.replace(tmp, path)
        with self._lock:
            if name not in self._chunks:
                self._chunks[name] = len(data)
                self._total_bytes += len(data)
            self._evict()
        return data[low:high]

    def _evict(self) -> None:
        while self._total_bytes > self._max_bytes and len(self._chunks) > 1:
            name, size = self._chunks.popitem(last=False)
            self._total_bytes -= size
            with contextlib.suppress(FileNotFoundError):
                (self._directory / name).unlink()
