"""File I/O helpers, and :func:`in_worker`, the one place ``OSError`` is translated.

The helpers run in worker threads and let ``OSError`` through; every call from the event
loop into file I/O goes through :func:`in_worker`, which runs it in a thread and turns
``OSError`` into :class:`~storage_nodes.log.errors.LogStorageError`. The exception is
:func:`pread_cached`, which never waits for the disk and so may run on the loop itself
(the caller translates its ``OSError`` the same way).
"""

from __future__ import annotations

import asyncio
import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

from storage_nodes.log.errors import LogStorageError

__all__ = [
    "NotCached",
    "append_all",
    "fsync_directory",
    "in_worker",
    "pread_cached",
    "pread_exact",
    "pwrite_all",
    "pwritev_all",
    "pwritev_durable",
]

_IOV_MAX = 1024  # POSIX minimum is 16, Linux has 1024
_RWF_DSYNC: int | None = getattr(os, "RWF_DSYNC", None)  # Linux 4.7+
_RWF_NOWAIT: int | None = getattr(os, "RWF_NOWAIT", None)  # buffered reads: Linux 5.9+


class NotCached(Exception):
    """The bytes asked of :func:`pread_cached` are not all in the page cache (or the OS
    cannot tell without waiting): read them in a worker thread instead."""


P = ParamSpec("P")
T = TypeVar("T")


async def in_worker(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run blocking file I/O in the default executor, off the event loop.

    Raises :class:`LogStorageError` (``from`` the ``OSError``) if the OS refuses it.
    """
    try:
        return await asyncio.to_thread(function, *args, **kwargs)
    except OSError as exc:
        raise LogStorageError(f"{getattr(function, '__qualname__', function)}: {exc}") from exc


def pwrite_all(fd: int, data: bytes, position: int) -> None:
    """Write all of ``data`` at ``position`` (a short write is retried, never ignored)."""
    view = memoryview(data)
    while view:
        written = os.pwrite(fd, view, position)
        view = view[written:]
        position += written


def pwritev_all(fd: int, parts: list[bytes], position: int) -> None:
    """Write ``parts`` back to back at ``position`` with as few syscalls as possible."""
    for start in range(0, len(parts), _IOV_MAX):
        chunk = parts[start : start + _IOV_MAX]
        total = sum(map(len, chunk))
        written = os.pwritev(fd, chunk, position)
        if written < total:  # rare (signal, disk full on the way): finish the slow way
            pwrite_all(fd, b"".join(chunk)[written:], position + written)
        position += total


def pwritev_durable(fd: int, parts: list[bytes], position: int) -> None:
    """Write ``parts`` at ``position`` and make them durable, as a following fdatasync would.

    Only the written range is synced: everything before ``position`` must be durable
    already. Where the OS has it, this is one ``pwritev2(RWF_DSYNC)`` (the same data
    integrity completion as fdatasync, for that range): the calling thread gives up the
    GIL once instead of twice, so a busy event loop cannot hold it between the write and
    the sync. Otherwise, and for a short write, pwritev then fdatasync.
    """
    if _RWF_DSYNC is None or len(parts) > _IOV_MAX:
        pwritev_all(fd, parts, position)
        os.fdatasync(fd)
        return
    try:
        written = os.pwritev(fd, parts, position, _RWF_DSYNC)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.EOPNOTSUPP):
            raise
        # The kernel or the file system refused the flag before writing anything.
        pwritev_all(fd, parts, position)
        os.fdatasync(fd)
        return
    if written < sum(map(len, parts)):  # rare (signal, disk full on the way)
        pwrite_all(fd, b"".join(parts)[written:], position + written)
        os.fdatasync(fd)


def append_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` at the current position (or the end, for ``O_APPEND``)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def pread_exact(fd: int, size: int, position: int) -> bytes:
    """Read up to ``size`` bytes at ``position``; shorter only at end of file."""
    data = os.pread(fd, size, position)
    if len(data) == size or not data:
        return data
    chunks = [data]
    got = len(data)
    while got < size:
        more = os.pread(fd, size - got, position + got)
        if not more:
            break
        chunks.append(more)
        got += len(more)
    return b"".join(chunks)


def pread_cached(fd: int, size: int, position: int) -> bytes:
    """``size`` bytes at ``position`` if the page cache holds all of them; else (or at end
    of file) raise :class:`NotCached` without waiting for the disk.

    One ``preadv2(RWF_NOWAIT)``: what makes a read cheap enough for the event loop.
    """
    if _RWF_NOWAIT is None:
        raise NotCached
    buffer = bytearray(size)
    try:
        got = os.preadv(fd, [buffer], position, _RWF_NOWAIT)
    except BlockingIOError:
        raise NotCached from None
    except OSError as exc:
        if exc.errno in (errno.EINVAL, errno.EOPNOTSUPP):  # no RWF_NOWAIT for this file
            raise NotCached from None
        raise
    if got != size:  # partly cached (or short): the rest would wait
        raise NotCached
    return bytes(buffer)


def fsync_directory(directory: Path) -> None:
    """Make creations, renames and deletions of entries in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
