"""Forward reads over the batches of one ``.log`` file."""

from __future__ import annotations

from pathlib import Path

from storage_nodes.log.errors import CorruptRecordError
from storage_nodes.log.fileio import NotCached, pread_cached, pread_exact
from storage_nodes.log.record import Record
from storage_nodes.log.record_batch import BATCH_HEADER, BatchHeader, check_crc, decode_batch
from storage_nodes.log.record_batch import read_header as parse_header

__all__ = ["BatchScanner"]

_CHUNK_BYTES = 64 * 1024
# A cached-only scanner runs on the event loop, where decoding a large batch would stall
# every other request: a batch larger than this is left to a worker.
_CACHED_MAX_BATCH_BYTES = 256 * 1024


class BatchScanner:
    """Reads batches of a segment file at increasing positions, in 64 KiB chunks.

    ``limit`` is the number of bytes of the file the caller may see (the committed size
    of the segment); anything that would extend past it is reported as corrupt, never
    returned. Every error is a :class:`CorruptRecordError` naming the file and position;
    ``OSError`` passes through for the caller's boundary to translate.

    With ``cached_only`` it never waits for the disk: a read of bytes that are not in the
    page cache, or of a batch larger than 256 KiB, raises :class:`NotCached` instead (the
    caller then scans again in a worker thread).

    Not thread-safe: one scanner per thread, over a file descriptor the caller owns.
    """

    def __init__(self, fd: int, path: Path, limit: int, *, cached_only: bool = False) -> None:
        self.path = path
        self.limit = limit
        self.fd = fd
        self.cached_only = cached_only
        self._buf = b""
        self._buf_start = 0  # file position of _buf[0]

    def _window(self, position: int, size: int) -> tuple[bytes, int]:
        """A buffer holding ``size`` bytes at ``position`` (fewer at ``limit``), and where."""
        end = self._buf_start + len(self._buf)
        if not (self._buf_start <= position and position + size <= end):
            want = max(min(max(size, _CHUNK_BYTES), self.limit - position), 0)
            if not self.cached_only:
                self._buf = pread_exact(self.fd, want, position)
            elif size > _CACHED_MAX_BATCH_BYTES:
                raise NotCached
            else:
                self._buf = pread_cached(self.fd, want, position)
            self._buf_start = position
        return self._buf, position - self._buf_start

    def header(self, position: int) -> BatchHeader:
        """The structurally valid header of a batch lying wholly below ``limit``."""
        buf, at = self._window(position, BATCH_HEADER.size)
        try:
            header = parse_header(buf, at)
        except CorruptRecordError as exc:
            raise CorruptRecordError(str(exc), self.path, position) from None
        if position + header.size > self.limit:
            raise CorruptRecordError(
                f"batch of {header.size} bytes runs past the segment's end", self.path, position
            )
        return header

    def verify(self, position: int, header: BatchHeader) -> None:
        """Check the CRC of the batch at ``position`` without decoding its records."""
        buf, at = self._window(position, header.size)
        try:
            check_crc(buf, at, header)
        except CorruptRecordError as exc:
            raise CorruptRecordError(str(exc), self.path, position) from None

    def decode(self, position: int, header: BatchHeader) -> list[Record]:
        """The records of the batch at ``position``, CRC verified."""
        buf, at = self._window(position, header.size)
        try:
            return decode_batch(buf, at)[1]
        except CorruptRecordError as exc:
            raise CorruptRecordError(str(exc), self.path, position) from None
