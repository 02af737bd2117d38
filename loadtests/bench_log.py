"""Append throughput of the partition log, beside the raw fsync ceiling of the same disk.

    python loadtests/bench_log.py [--seconds N] [--dir D] [--max-appends M]

For 1 KiB records, each durability policy is run with 1 and with 64 producers (asyncio
tasks that each append one record at a time and await it). The raw ceiling is a plain
loop doing what the engine's best case does per group commit: one pwrite of the bytes of
N encoded records (N = producers) and one fdatasync. MB/s counts record bodies (1 KiB
each) on both sides. The ratio (engine / ceiling) matters for the fsync rows, where the
disk is the limit; 64 producers should reach 0.5. Two more ceilings are shown for
comparison: pwrite + fsync, and one pwritev2 with RWF_DSYNC (write and data sync in one
call), which is what the engine issues for a round when all before it is durable. A
last, extra row has the 64 producers append 10 records at a time (an SQS
SendMessageBatch).

The engine runs on uvloop, the event loop the TideMQ server runs on.

Each run is bounded both by --seconds and by --max-appends; files go to a temporary
directory under --dir (default: the current directory, i.e. this disk) and are removed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import uvloop

from storage_nodes.log.partition_log import Durability, LogConfig, PartitionLog
from storage_nodes.log.record import RecordIn
from storage_nodes.log.record_batch import encode_batch

RECORD_BYTES = 1024
POLICIES: tuple[Durability, ...] = ("fsync", "interval", "none")
PRODUCERS = (1, 64)


@dataclass(frozen=True)
class Result:
    appends: int  # records, for the batched row
    seconds: float
    writes: int

    @property
    def per_second(self) -> float:
        return self.appends / self.seconds

    @property
    def mb_per_second(self) -> float:
        return self.appends * RECORD_BYTES / self.seconds / 1e6


async def run_engine(
    directory: Path,
    policy: Durability,
    producers: int,
    seconds: float,
    max_appends: int,
    *,
    per_append: int = 1,
) -> Result:
    """``producers`` tasks, each appending ``per_append`` records at a time and awaiting."""
    log = await PartitionLog.open(directory, LogConfig(durability=policy))
    body = os.urandom(RECORD_BYTES)
    deadline = time.perf_counter() + seconds
    budget = [max_appends]

    async def produce(producer: int) -> None:
        n = 0
        while budget[0] > 0 and time.perf_counter() < deadline:
            budget[0] -= per_append
            now = time.time_ns() // 1_000_000
            records = [
                RecordIn(f"{producer:04d}-{n + i:012d}", now, body) for i in range(per_append)
            ]
            await log.append(records)
            n += per_append

    start = time.perf_counter()
    await asyncio.gather(*(produce(p) for p in range(producers)))
    elapsed = time.perf_counter() - start
    stats = log.stats
    await log.close()
    return Result(stats.records, elapsed, stats.writes)


def run_raw(
    directory: Path, records_per_write: int, seconds: float, max_appends: int, sync: str
) -> Result:
    """pwrite + ``sync`` of ``records_per_write`` encoded records, in a plain loop; with
    ``sync="dsync"``, one pwritev2(RWF_DSYNC) per write instead."""
    body = os.urandom(RECORD_BYTES)
    batch = encode_batch([RecordIn("0000-000000000000", time.time_ns() // 1_000_000, body)])
    data = (batch.prefix(0) + batch.covered) * records_per_write
    sync_call = os.fsync if sync == "fsync" else os.fdatasync
    dsync = getattr(os, "RWF_DSYNC", None) if sync == "dsync" else None
    path = directory / "raw.log"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        position = writes = 0
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline and writes * records_per_write < max_appends:
            if dsync is not None:
                os.pwritev(fd, [data], position, dsync)
            else:
                os.pwrite(fd, data, position)
                sync_call(fd)
            position += len(data)
            writes += 1
        elapsed = time.perf_counter() - start
    finally:
        os.close(fd)
        path.unlink()
    return Result(writes * records_per_write, elapsed, writes)


@dataclass(frozen=True)
class Row:
    policy: str
    producers: str
    engine: Result
    raw: Result  # pwrite + fdatasync
    raw_fsync: Result  # pwrite + fsync
    raw_dsync: Result  # pwritev2(RWF_DSYNC)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per run (default 3)")
    parser.add_argument("--dir", type=Path, default=Path.cwd(), help="where to write")
    parser.add_argument("--max-appends", type=int, default=400_000, help="per run")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench_log-", dir=args.dir))
    rows = []
    try:
        for policy in POLICIES:
            for producers in PRODUCERS:
                # The ceiling is measured right beside the run it is compared with: the
                # disk of a shared machine drifts from minute to minute.
                raw, raw_fsync, raw_dsync = (
                    run_raw(root, producers, args.seconds / 2, args.max_appends, sync)
                    for sync in ("fdatasync", "fsync", "dsync")
                )
                directory = root / f"{policy}-{producers}"
                engine = uvloop.run(
                    run_engine(directory, policy, producers, args.seconds, args.max_appends)
                )
                shutil.rmtree(directory)
                rows.append(Row(policy, str(producers), engine, raw, raw_fsync, raw_dsync))
        # Not one of the required rows: producers that batch like SendMessageBatch (10).
        raw, raw_fsync, raw_dsync = (
            run_raw(root, 640, args.seconds / 2, args.max_appends, sync)
            for sync in ("fdatasync", "fsync", "dsync")
        )
        engine = uvloop.run(
            run_engine(root / "batched", "fsync", 64, args.seconds, args.max_appends, per_append=10)
        )
        rows.append(Row("fsync", "64 x10", engine, raw, raw_fsync, raw_dsync))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print_table(rows)


def print_table(rows: list[Row]) -> None:
    print()
    print("1 KiB records. Raw ceiling: a plain loop of pwrite(N encoded records) + sync,")
    print("N = producers, measured just before each row. Ratio = engine MB/s / raw MB/s")
    print("with fdatasync; the last two columns use fsync, and pwritev2(RWF_DSYNC), instead.")
    header = (
        f"{'policy':<9}{'producers':>10}{'appends/s':>11}{'MB/s':>8}{'recs/write':>11}"
        f"{'raw appends/s':>14}{'raw MB/s':>9}{'ratio':>7}{'vs fsync':>9}{'vs dsync':>9}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        engine, raw = row.engine, row.raw
        ratio = engine.mb_per_second / raw.mb_per_second
        ratio_fsync = engine.mb_per_second / row.raw_fsync.mb_per_second
        ratio_dsync = engine.mb_per_second / row.raw_dsync.mb_per_second
        print(
            f"{row.policy:<9}{row.producers:>10}{engine.per_second:>11,.0f}"
            f"{engine.mb_per_second:>8.1f}{engine.appends / max(engine.writes, 1):>11.1f}"
            f"{raw.per_second:>14,.0f}{raw.mb_per_second:>9.1f}"
            f"{ratio:>7.2f}{ratio_fsync:>9.2f}{ratio_dsync:>9.2f}"
        )
    print("(ratios of the interval and none rows compare with a ceiling they do not pay for;")
    print(" '64 x10': 64 producers appending 10 records at a time, ceiling of 640 per write)")


if __name__ == "__main__":
    main()
