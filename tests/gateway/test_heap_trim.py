"""After a burst, free heap pages go back to the system while `trimming_heap` runs."""

from __future__ import annotations

import asyncio
from pathlib import Path

from gateway.heap_trim import trimming_heap


def _rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS in /proc/self/status")


async def test_freed_heap_pages_are_given_back() -> None:
    async with trimming_heap(interval_s=0.05):
        # 2 KiB chunks: above pymalloc's 512 bytes, below glibc's mmap threshold, so they
        # come from (and, freed, stay in) glibc's heap.
        chunks = [bytearray(2048) for _ in range(100_000)]
        peak = _rss_bytes()
        # Keep the last chunk: the top of the heap stays in use, as in a server, so only
        # the trim (not free()'s own shrinking of the heap top) can return the rest.
        last = chunks[-1]
        del chunks
        await asyncio.sleep(0.5)
        after = _rss_bytes()
        assert len(last) == 2048
    assert peak - after > 100 * 1024 * 1024, (peak, after)
