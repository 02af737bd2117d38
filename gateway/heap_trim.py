"""Giving memory back after a burst.

A burst (thousands of connections at once, each with its buffers and request objects)
grows the heap; once it is over, the objects are freed but glibc keeps the pages in its
heap, so the process's resident memory stays at its peak. `malloc_trim(0)` hands the
free pages back to the system. It is cheap when there is nothing to give back; it runs
every `interval_s` in a worker thread (ctypes releases the GIL for the call), so a large
trim never holds up the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import logging
from collections.abc import AsyncIterator, Callable

log = logging.getLogger(__name__)

TRIM_INTERVAL_S = 5.0


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, looked up once rather than at each trim (each lookup made
    a CDLL and its function objects, after a burst among the allocations that keep
    CPython's arenas)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return None  # not glibc: nothing to trim this way
    trim: Callable[[int], int] = libc.malloc_trim
    return trim


async def give_back_heap() -> None:
    """Hands the free heap pages back now (in a worker thread); nothing where the C
    library is not glibc."""
    trim = _malloc_trim()
    if trim is not None:
        await asyncio.to_thread(trim, 0)


@contextlib.asynccontextmanager
async def trimming_heap(
    interval_s: float = TRIM_INTERVAL_S, quiet: Callable[[], bool] = lambda: True
) -> AsyncIterator[None]:
    """While inside, the process's free heap pages go back to the system every
    `interval_s` when `quiet()`: glibc's trim holds the allocator's lock for as long as
    it walks the heap, and the event loop's allocations wait for it (under
    PYTHONMALLOC=malloc every Python object is one), so it is not done in the middle of
    a burst, when the heap is at its largest and has least to give back."""
    trim = _malloc_trim()
    if trim is None:
        yield
        return

    async def loop() -> None:
        while True:
            await asyncio.sleep(interval_s)
            if quiet():
                await asyncio.to_thread(trim, 0)

    task = asyncio.create_task(loop(), name="heap-trim")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
