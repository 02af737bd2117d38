"""The gateway's heap and the cyclic garbage collector.

A full collection walks every tracked object; with the start-up heap (Starlette, redis-py,
botocore's SQS model for the Query protocol, ...) that is 60 000 objects and 45-80 ms
on the machine of docs/performance.md, during which the event loop serves nothing. At
1 000 requests a second the collector ran one every two seconds or so, and those pauses
alone put the single-message p99 at tens of milliseconds. Objects that exist once the
gateway has started live as long as it does, so they are moved out of the collector's
reach (`gc.freeze`): later full collections walk only what was made since.

Requests in flight are walked too: 5 000 long polls waiting hold some 600 000 tracked
objects (their coroutines, scopes, timers), and a full collection then takes about
200 ms. CPython starts one whenever the objects that survived two younger collections
grew by a quarter, which a burst of connections does again and again: five such pauses
within 2 s of a 5 000-poll burst. So the collector's own full collections are turned
off (`collecting_on_schedule`) and they run on our schedule instead:

- every FULL_COLLECTION_INTERVAL_S, so cyclic garbage that outlived two young
  collections is found within a minute;
- and once a burst is over (the requests in flight fell to an eighth of a peak of at
  least BURST_REQUESTS, and stayed there for AFTER_BURST_QUIET_S, by when the burst's
  connections have closed too), when the walk is short again, and on each check until
  AFTER_BURST_S after the burst. These collections also empty CPython's
  free lists (of tuples, dicts, floats, ...), which a burst filled with thousands of
  blocks that would otherwise keep its memory from going back to the system; the free
  heap pages are handed back after each (gateway/heap_trim.py). With the burst gone, each
  walks a few thousand objects: a millisecond or two. Handing back the first time is
  not free: glibc's `malloc_trim` holds the allocator's lock while it gives back
  100 MiB, and the event loop, which allocates all the time, waits for it (100-150 ms
  once, measured after a 5 000-poll burst); hence the wait for the burst to be over.

Young collections are unchanged; they walk only what is new.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import AsyncIterator, Callable

from gateway.heap_trim import give_back_heap

log = logging.getLogger(__name__)

FULL_COLLECTION_INTERVAL_S = 60.0
BURST_REQUESTS = 500
# Fewer requests in flight than this: quiet enough to walk and trim the heap at any time.
QUIET_REQUESTS = BURST_REQUESTS // 8
AFTER_BURST_QUIET_S = 1.0
AFTER_BURST_S = 3.0
_CHECK_INTERVAL_S = 0.5
_BURST_OVER_FRACTION = 8  # a burst is over once in flight <= its peak / this
# gc's third threshold counts second-generation collections: at this many, never.
_NEVER = 2**31 - 1


def freeze_startup_heap() -> None:
    """Collects what start-up left as garbage, then freezes the rest: call once the
    gateway is open, before it serves."""
    gc.collect()
    gc.freeze()


@contextlib.asynccontextmanager
async def collecting_on_schedule(
    in_flight: Callable[[], int],
    interval_s: float = FULL_COLLECTION_INTERVAL_S,
    burst_requests: int = BURST_REQUESTS,
) -> AsyncIterator[None]:
    """While inside, full collections run every `interval_s` and once each burst of
    requests is over (`in_flight`: the requests begun and not ended), at no other time."""
    young, middle, old = gc.get_threshold()
    gc.set_threshold(young, middle, _NEVER)

    async def loop() -> None:
        last = time.monotonic()
        peak = 0
        burst_over_at: float | None = None
        while True:
            await asyncio.sleep(min(_CHECK_INTERVAL_S, interval_s))
            now = time.monotonic()
            now_in_flight = in_flight()
            peak = max(peak, now_in_flight)
            if peak >= burst_requests and now_in_flight <= peak // _BURST_OVER_FRACTION:
                burst_over_at = burst_over_at or now
            else:
                burst_over_at = None
            if burst_over_at is not None and now - burst_over_at >= AFTER_BURST_QUIET_S:
                _collect(f"a burst of {peak} requests is over")
                await give_back_heap()
                if now - burst_over_at >= AFTER_BURST_S:
                    burst_over_at = None
                    peak = now_in_flight
                last = now
            elif now - last >= interval_s:
                _collect("scheduled")
                last = now

    task = asyncio.create_task(loop(), name="full-collections")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        gc.set_threshold(young, middle, old)


def _collect(why: str) -> None:
    began = time.perf_counter()
    unreachable = gc.collect()
    log.debug(
        "full collection (%s): %d unreachable, %.1f ms",
        why,
        unreachable,
        (time.perf_counter() - began) * 1000,
    )
