"""Child process of the crash test: appends forever under ``fsync`` and reports each append
on stdout only after it returned, as ``<base offset> <message id> ...``.

    python -m tests.storage_nodes.log.crash_writer <directory> <round>

Message ids are ``<round>-<producer>-<n>-<i>``; a body is derived from its id
(:func:`crash_body`), so every record found later can be checked on its own.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
import time
from pathlib import Path

from storage_nodes.log.partition_log import LogConfig, PartitionLog
from storage_nodes.log.record import RecordIn

from .conftest import body_for

CONFIG = LogConfig(durability="fsync", segment_max_bytes=96 * 1024, index_interval_bytes=2048)
PRODUCERS = 8


def crash_body(message_id: str) -> bytes:
    return body_for(message_id, 50 + hash_size(message_id))


def hash_size(message_id: str) -> int:
    return sum(message_id.encode()) * 37 % 3000


async def produce(log: PartitionLog, round_id: str, producer: int) -> None:
    rng = random.Random(f"{round_id}-{producer}")
    n = 0
    while True:
        ids = [f"{round_id}-{producer}-{n}-{i}" for i in range(rng.randint(1, 4))]
        now = time.time_ns() // 1_000_000
        base = await log.append([RecordIn(m, now, crash_body(m)) for m in ids])
        os.write(1, f"{base} {' '.join(ids)}\n".encode())  # one write: atomic on a pipe
        n += 1


async def main(directory: Path, round_id: str) -> None:
    log = await PartitionLog.open(directory, CONFIG)
    os.write(1, b"ready\n")
    await asyncio.gather(*(produce(log, round_id, p) for p in range(PRODUCERS)))


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), sys.argv[2]))
