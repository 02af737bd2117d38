"""The thread that performs a partition's writes, in order, off the event loop."""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

__all__ = ["IoJob", "IoThread"]

log = logging.getLogger(__name__)


class IoJob(Protocol):
    def run(self) -> None:
        """Blocking file I/O; may raise."""


J = TypeVar("J", bound=IoJob)


class IoThread(Generic[J]):
    """Runs jobs one after another in a dedicated thread and reports to the event loop.

    ``on_done(job, error)`` is scheduled on the loop once a job has finished. A job
    queued while another runs starts the moment that one ends, with no round trip
    through the loop.

    After a job raises, the thread runs no further job: each is reported done with the
    same error, so nothing is written after a failed write (or fsync).

    Thread-safety: :meth:`submit` and :meth:`stop` are called from the loop thread; the
    callback runs on the loop thread. The thread is a daemon: an interpreter exiting
    without closing the log does not wait for it (unsynced data is then the policy's).
    """

    def __init__(
        self,
        name: str,
        loop: asyncio.AbstractEventLoop,
        on_done: Callable[[J, BaseException | None], None],
    ) -> None:
        self._loop = loop
        self._on_done = on_done
        self._jobs: queue.SimpleQueue[J | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, job: J) -> None:
        self._jobs.put(job)

    def stop(self) -> None:
        """Let the thread end after the jobs already submitted."""
        self._jobs.put(None)

    def join(self) -> None:
        """Wait for the thread to end (blocking: call from a worker thread)."""
        self._thread.join()

    def _run(self) -> None:
        error: BaseException | None = None
        while (job := self._jobs.get()) is not None:
            if error is None:
                try:
                    job.run()
                except BaseException as exc:  # reported to the loop, which owns failure
                    error = exc
            try:
                self._loop.call_soon_threadsafe(self._on_done, job, error)
            except RuntimeError:  # the loop is closed: nobody is left to report to
                log.warning("event loop closed under a running log I/O thread; stopping it")
                return
