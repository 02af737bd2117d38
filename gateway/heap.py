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
off (`collecting_on_schedule`) and one runs every FULL_COLLECTION_INTERVAL_S instead: at
most one pause of that kind a minute, at the cost of cyclic garbage that outlived two
young collections staying up to a minute longer. Young collections are unchanged; they
walk only what is new.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import AsyncIterator

log = logging.getLogger(__name__)

FULL_COLLECTION_INTERVAL_S = 60.0
# gc's third threshold counts second-generation collections: at this many, never.
_NEVER = 2**31 - 1


def freeze_startup_heap() -> None:
    """Collects what start-up left as garbage, then freezes the rest: call once the
    gateway is open, before it serves."""
    gc.collect()
    gc.freeze()


@contextlib.asynccontextmanager
async def collecting_on_schedule(
    interval_s: float = FULL_COLLECTION_INTERVAL_S,
) -> AsyncIterator[None]:
    """While inside, full collections run every `interval_s` and at no other time."""
    young, middle, old = gc.get_threshold()
    gc.set_threshold(young, middle, _NEVER)

    async def loop() -> None:
        while True:
            await asyncio.sleep(interval_s)
            began = time.perf_counter()
            found = gc.collect()
            log.debug(
                "full collection: %d unreachable, %.1f ms",
                found,
                (time.perf_counter() - began) * 1e3,
            )

    task = asyncio.create_task(loop(), name="full-collections")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        gc.set_threshold(young, middle, old)
