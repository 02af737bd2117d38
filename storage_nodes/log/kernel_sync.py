"""fdatasync without a thread of ours: Linux AIO's FDSYNC, done by the kernel's own worker
and reported through an eventfd that the event loop watches.

Why: the log's I/O thread (io_thread.py) holds the GIL twice a round, to pick the round
up and to come back from its system call, and on a busy two-core server it waits for the
event loop to let go of it both times. In e2e_ws a round took 1.1 ms in that thread
against 0.25 ms for the same write and sync made on the loop (docs/performance.md,
"Syncs without the I/O thread"). Here the loop writes the round's bytes (into the page
cache: no waiting for the disk) and hands the sync to the kernel; when the eventfd is
readable, the loop runs the callback. Nothing waits for the GIL.

Where Linux AIO is missing (another OS, a kernel before 4.18, a sandbox that refuses
``io_setup``, every AIO context of the machine in use), :func:`acquire` returns None and
the log keeps using its I/O thread for everything.

An AIO context is never ended while the process runs: when a loop's last log closes, its
context is kept aside for the next loop's first log, not destroyed. caio ends a context
(`io_destroy`) as its object goes, holding the GIL, and `io_destroy` waits in the kernel
for 30-60 ms here (importing caio's module makes and ends a context too: most of the
import's time); on the event loop, when the last open queue was deleted, that stopped the
whole gateway as long (docs/performance.md).

Thread-safety: event-loop thread only (the contexts kept aside are shared by every loop
of the process: taken and put back with a list's pop and append, atomic under the GIL).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import weakref
from collections.abc import Callable
from functools import partial
from typing import Any

__all__ = ["KernelSync", "SyncDone", "acquire", "linux_aio"]

log = logging.getLogger(__name__)

SyncDone = Callable[[OSError | None], None]

# Syncs in flight at once, per event loop (each partition log has at most one): a sync
# asked for beyond it goes through the I/O thread instead. The kernel counts twice this
# against fs.aio-max-nr (65 536 by default, machine-wide), for as long as a loop has an
# open log.
MAX_IN_FLIGHT = 128


@functools.cache
def linux_aio() -> tuple[Any, Any] | ImportError:
    """caio's Context and Operation classes, or why they cannot be had. Importing caio
    takes 40-120 ms: a node calls this as it starts (LocalNode.start), so that the first
    log to open does not hold up the event loop, and every request waiting on it, as
    long."""
    try:
        from caio.linux_aio import Context, Operation  # noqa: PLC0415 - Linux only
    except ImportError as exc:  # not Linux, or the kernel refused at import
        return exc
    return Context, Operation


# Contexts whose loop has no log open any more, for the next syncer to take (module
# docstring): never more than the most loops the process had logs open on at once.
_spare_contexts: list[Any] = []

# The syncer each loop's open logs share, or None where one could not be had.
_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, KernelSync | None] = (
    weakref.WeakKeyDictionary()
)


def acquire(loop: asyncio.AbstractEventLoop) -> KernelSync | None:
    """The loop's kernel syncer, made at first use, for a log to :meth:`~KernelSync.release`
    when it closes; None where Linux AIO cannot be had (asked once per loop)."""
    if loop in _by_loop:
        syncer = _by_loop[loop]
    else:
        syncer = _by_loop[loop] = KernelSync.open(loop)
    if syncer is not None:
        syncer.users += 1
    return syncer


class KernelSync:
    def __init__(self, loop: asyncio.AbstractEventLoop, context: Any, operation: Any) -> None:
        # Weakly: the registry above is keyed weakly by the loop, so a loop whose logs
        # were never closed takes its AIO context (io_destroy) with it when it goes.
        self._loop = weakref.ref(loop)
        self._context: Any = context
        self._operation = operation  # caio's Operation class
        self._in_flight = 0
        self.users = 0
        loop.add_reader(context.fileno, self._on_completions)

    @classmethod
    def open(cls, loop: asyncio.AbstractEventLoop) -> KernelSync | None:
        classes = linux_aio()
        if isinstance(classes, ImportError):
            log.info("log syncs go through the I/O thread: no Linux AIO (%s)", classes)
            return None
        context_class, operation_class = classes
        try:
            context = _spare_contexts.pop()  # one a loop let go before
        except IndexError:
            try:
                context = context_class(MAX_IN_FLIGHT)
            except (OSError, SystemError) as exc:  # io_setup refused: fs.aio-max-nr reached
                log.warning("log syncs go through the I/O thread: io_setup failed (%s)", exc)
                return None
        return cls(loop, context, operation_class)

    @property
    def has_room(self) -> bool:
        return self._in_flight < MAX_IN_FLIGHT

    def fdatasync(self, fd: int, done: SyncDone) -> None:
        """Starts making ``fd``'s written data durable, as fdatasync does; ``done`` runs on
        the loop afterwards with None, or with the OSError the sync failed with. Raises
        OSError if the kernel refuses to start it (then ``done`` never runs)."""
        assert self._context is not None, "fdatasync on a released syncer"
        operation = self._operation.fdsync(fd)
        operation.set_callback(partial(self._completed, done))
        try:
            accepted = self._context.submit(operation)
        except (ValueError, OverflowError, SystemError) as exc:  # caio's names for errnos
            raise OSError(f"io_submit of an fdatasync refused: {exc}") from exc
        if accepted != 1:
            raise OSError("io_submit accepted no fdatasync")
        self._in_flight += 1

    def release(self) -> None:
        """A log is done with it; the last one lets the AIO context go to the next loop's
        first log."""
        self.users -= 1
        self._close_if_unused()

    def _close_if_unused(self) -> None:
        if self.users or self._in_flight or self._context is None:
            return
        loop = self._loop()
        if loop is not None:
            _by_loop.pop(loop, None)
            if not loop.is_closed():
                loop.remove_reader(self._context.fileno)
        # Kept, not dropped: dropping it would end it, 30-60 ms with the GIL held.
        _spare_contexts.append(self._context)
        self._context = None

    def _completed(self, done: SyncDone, result: int) -> None:
        self._in_flight -= 1
        try:
            done(_error_of(result))
        finally:
            self._close_if_unused()

    def _on_completions(self) -> None:
        if self._context is None:
            return
        # The eventfd's count; the completions are read below whatever it says.
        with contextlib.suppress(BlockingIOError):
            self._context.poll()
        # A callback may have let the last user go, and with it the context.
        while self._context is not None and self._context.process_events():
            pass


def _error_of(result: int) -> OSError | None:
    """The kernel's ``res`` of an FDSYNC: 0, or a negative errno, which caio hands over as
    an unsigned 64-bit number."""
    if result < 1 << 63:
        return None
    code = (1 << 64) - result
    return OSError(code, os.strerror(code))
