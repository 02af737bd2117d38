"""Errors raised by the partition log engine.

Every error the log raises on purpose is a :class:`LogError`::

    LogError
    ├── InvalidRecordError        the caller's input cannot be stored (also a ValueError)
    ├── CorruptRecordError        bytes on disk failed a CRC or structural check
    ├── LogClosedError            the log was closed; open it again to use it
    └── LogStorageError           the operating system refused a read, write or fsync

Behaviour is carried by class attributes rather than by isinstance chains:

* ``retriable`` -- whether the same call may succeed if simply retried on this log object.
  None of them is: a storage error poisons the log (after a failed fsync the page cache
  can no longer be trusted, so the only safe path is to reopen, which runs recovery).

``OSError`` is translated into :class:`LogStorageError` where results of worker threads
come back to the event loop (``fileio.in_worker``, and the writer's I/O-thread report),
always chained (``raise ... from exc``) so the errno survives in ``__cause__``.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "CorruptRecordError",
    "InvalidRecordError",
    "LogClosedError",
    "LogError",
    "LogStorageError",
]


class LogError(Exception):
    """Base class of every error raised by ``storage_nodes.log``."""

    retriable: bool = False


class InvalidRecordError(LogError, ValueError):
    """The records handed to ``append`` cannot be encoded (empty batch, field out of range)."""


class CorruptRecordError(LogError):
    """A batch failed its CRC32C or structural check while being decoded.

    Raised by reads of sealed segments (recovery cuts a corrupt tail of the active segment
    instead of raising). ``path`` and ``position`` locate the bad batch when known.
    """

    def __init__(self, message: str, path: Path | None = None, position: int | None = None):
        where = f" ({path} at byte {position})" if path is not None else ""
        super().__init__(message + where)
        self.path = path
        self.position = position


class LogClosedError(LogError):
    """The log was closed (or failed) and accepts no more calls."""


class LogStorageError(LogError):
    """An ``OSError`` from the disk; the original is ``__cause__``.

    After this error the log object refuses further appends: reopen it to recover.
    """
