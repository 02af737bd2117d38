"""The gateway's heap and the cyclic garbage collector.

A full collection walks every tracked object; with the start-up heap (Starlette, redis-py,
botocore's SQS model for the Query protocol, ...) that is 60 000 objects and 45-80 ms
on the machine of docs/performance.md, during which the event loop serves nothing. At
1 000 requests a second the collector ran one every two seconds or so, and those pauses
alone put the single-message p99 at tens of milliseconds. Objects that exist once the
gateway has started live as long as it does, so they are moved out of the collector's
reach (`gc.freeze`): later full collections walk only what was made since.
"""

from __future__ import annotations

import gc


def freeze_startup_heap() -> None:
    """Collects what start-up left as garbage, then freezes the rest: call once the
    gateway is open, before it serves."""
    gc.collect()
    gc.freeze()
