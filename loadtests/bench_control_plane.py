"""Claim + delete throughput of the Redis control plane, beside redis-benchmark's own rates
on the same server.

    python loadtests/bench_control_plane.py [--seconds N] [--workers 1,8,32] [--dir D]
                                            [--max-rounds M]

One round is what a consumer does with ReceiveMessage(MaxNumberOfMessages=10) and
DeleteMessageBatch: one `claim` of 10 messages (one CLAIM script) and one `delete` of
those 10 with their receipts (one DELETE_MESSAGES script). Every worker is an asyncio task
doing rounds back to back on one shared ControlPlane (its own connection from the pool),
all on one subscription, on uvloop as the server runs. Messages are only references here:
the log end passed to `claim` is far ahead, as if the log were already full.

Each worker count runs against a Redis this script starts itself (tidemq.redis_server,
the embedded launcher's), once with `appendfsync always` (the default: every reply waits
for its fsync; concurrent clients share them) and once with `everysec`. Beside each, on
the same server: `redis-benchmark -q -n 100000 -P 1 -t set` and an EVALSHA of a script
that only returns 1, both with redis-benchmark's 50 clients. `vs EVALSHA` is our scripts
per second over that trivial script's rate: how close two real scripts per round come to
the cost of a script call itself. redis-benchmark (or valkey-benchmark) is looked for on
PATH; it comes with the redis-tools package (`apt-get install redis-tools`).

Each cell is bounded by --seconds and by --max-rounds; the Redis data directory goes to a
temporary directory under --dir (default: the current directory, i.e. this disk, since
fsync speed is the disk's) and is removed.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import redis
import uvloop

from control_plane.clock import SystemClock
from control_plane.plane import ControlPlane
from tidemq.redis_server import AppendFsync, RedisServer, RedisServerConfig

BATCH = 10
VISIBILITY_MS = 300_000  # longer than any run: nothing is redelivered while measuring
LOG_END = 10**12  # the cursor never reaches it
MODES: tuple[AppendFsync, ...] = ("always", "everysec")
BENCHMARK_REQUESTS = 100_000
BENCHMARK_TIMEOUT_S = 300
TRIVIAL_SCRIPT = "return 1"


@dataclass(frozen=True)
class Result:
    rounds: int
    seconds: float
    latencies_ms: list[float]
    server_us_per_script: float  # Redis's own time per EVALSHA (INFO commandstats)
    client_cpu: float  # CPU seconds of this (client) process per wall-clock second

    @property
    def messages_per_second(self) -> float:
        return self.rounds * BATCH / self.seconds

    @property
    def scripts_per_second(self) -> float:
        return self.rounds * 2 / self.seconds

    def percentile_ms(self, fraction: float) -> float:
        ordered = sorted(self.latencies_ms)
        return ordered[min(int(fraction * len(ordered)), len(ordered) - 1)]


async def run_workers(
    url: str, subscription_id: str, workers: int, seconds: float, max_rounds: int
) -> Result:
    plane = await ControlPlane.connect(url, SystemClock())
    deliveries = plane.deliveries
    budget = [max_rounds]
    latencies: list[float] = []

    async def work() -> None:
        while budget[0] > 0 and time.perf_counter() < deadline:
            budget[0] -= 1
            started = time.perf_counter()
            claim = await deliveries.claim(subscription_id, {0: LOG_END}, BATCH, VISIBILITY_MS)
            if len(claim.deliveries) != BATCH:
                raise RuntimeError(f"claimed {len(claim.deliveries)}, not {BATCH}")
            receipts = [
                deliveries.verify(subscription_id, d.receipt_handle) for d in claim.deliveries
            ]
            if not all(await deliveries.delete(receipts)):
                raise RuntimeError("a delete with a fresh receipt was refused")
            latencies.append((time.perf_counter() - started) * 1000)

    try:
        # Warm up: connections for every worker, scripts loaded.
        deadline = time.perf_counter() + 60
        budget[0] = workers
        await asyncio.gather(*(work() for _ in range(workers)))
        latencies.clear()
        await plane.redis.config_resetstat()
        budget[0] = max_rounds
        start, cpu_start = time.perf_counter(), time.process_time()
        deadline = start + seconds
        await asyncio.gather(*(work() for _ in range(workers)))
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
        evalsha = (await plane.redis.info("commandstats")).get("cmdstat_evalsha", {})
    finally:
        await plane.close()
    server_us = float(evalsha.get("usec_per_call", 0))
    return Result(len(latencies), elapsed, latencies, server_us, cpu / elapsed)


def find_benchmark() -> str | None:
    for name in ("redis-benchmark", "valkey-benchmark"):
        found = shutil.which(name)
        if found:
            return found
    return None


def redis_benchmark(binary: str, port: int, *command: str) -> float:
    """Requests per second that redis-benchmark reports for one test or command."""
    arguments = ["-h", "127.0.0.1", "-p", str(port), "-q", "-n", str(BENCHMARK_REQUESTS)]
    completed = subprocess.run(
        [binary, *arguments, "-P", "1", *command],
        capture_output=True,
        text=True,
        timeout=BENCHMARK_TIMEOUT_S,
        check=True,
    )
    rates = re.findall(r"([\d.]+) requests per second", completed.stdout)
    if not rates:
        raise RuntimeError(f"unexpected redis-benchmark output: {completed.stdout!r}")
    return float(rates[-1])


@dataclass(frozen=True)
class ModeResult:
    mode: AppendFsync
    workers: dict[int, Result]
    set_rps: float | None
    evalsha_rps: float | None


def run_mode(
    root: Path, mode: AppendFsync, workers: list[int], seconds: float, max_rounds: int
) -> ModeResult:
    server = RedisServer(RedisServerConfig(root / mode, appendfsync=mode))
    server.start()
    try:
        results = {}
        for count in workers:
            sid = f"bench-{mode}-{count}"
            results[count] = uvloop.run(run_workers(server.url, sid, count, seconds, max_rounds))
            print(
                f"  appendfsync {mode}, {count} worker(s): "
                f"{results[count].messages_per_second:,.0f} messages/s",
                file=sys.stderr,
            )
        set_rps = evalsha_rps = None
        binary = find_benchmark()
        if binary is not None:
            client = redis.Redis.from_url(server.url)
            try:
                sha = str(client.script_load(TRIVIAL_SCRIPT))
            finally:
                client.close()
            set_rps = redis_benchmark(binary, server.port, "-t", "set")
            evalsha_rps = redis_benchmark(binary, server.port, "evalsha", sha, "0")
        return ModeResult(mode, results, set_rps, evalsha_rps)
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per cell (default 5)")
    parser.add_argument(
        "--workers", default="1,8,32", help="comma-separated worker counts (default 1,8,32)"
    )
    parser.add_argument("--dir", type=Path, default=Path.cwd(), help="where Redis writes")
    parser.add_argument("--max-rounds", type=int, default=500_000, help="per cell (default 500000)")
    args = parser.parse_args()
    workers = [int(w) for w in args.workers.split(",")]
    if find_benchmark() is None:
        print(
            "redis-benchmark (or valkey-benchmark) is not on PATH, so only our own numbers "
            "are shown;\nto compare with Redis's own rates install it, e.g. "
            "`apt-get install redis-tools` on Debian/Ubuntu."
        )
    root = Path(tempfile.mkdtemp(prefix="bench_control_plane-", dir=args.dir))
    try:
        print(f"running, each cell up to {args.seconds:g} s ...", file=sys.stderr)
        modes = [run_mode(root, m, workers, args.seconds, args.max_rounds) for m in MODES]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print_table(modes)


def print_table(modes: list[ModeResult]) -> None:
    print()
    legend = [
        f"Round = claim {BATCH} (1 script) + delete {BATCH} (1 script); msgs/s = messages "
        "claimed and acked.",
        "server us/script = Redis's own time per script call (INFO commandstats);",
        "client CPU = this benchmark process's CPU time over wall time (one core = 100%);",
        f"vs EVALSHA = scripts/s over redis-benchmark's EVALSHA rate of '{TRIVIAL_SCRIPT}' on "
        "the same server.",
        f"redis-benchmark rows: -n {BENCHMARK_REQUESTS} -P 1, 50 clients; their 'scripts/s' "
        "is requests/s.",
    ]
    print("\n".join(legend))
    header = (
        f"{'appendfsync':<12}{'client':<28}{'msgs/s':>10}{'scripts/s':>11}"
        f"{'round p50 ms':>13}{'round p99 ms':>13}{'server us/script':>17}"
        f"{'client CPU':>11}{'vs EVALSHA':>11}"
    )
    print(header)
    print("-" * len(header))
    for mode in modes:
        for count, result in mode.workers.items():
            ratio = (
                f"{result.scripts_per_second / mode.evalsha_rps:.2f}" if mode.evalsha_rps else "n/a"
            )
            label = f"tidemq, {count} worker{'s' if count > 1 else ''}"
            print(
                f"{mode.mode:<12}{label:<28}{result.messages_per_second:>10,.0f}"
                f"{result.scripts_per_second:>11,.0f}{result.percentile_ms(0.5):>13.2f}"
                f"{result.percentile_ms(0.99):>13.2f}{result.server_us_per_script:>17.0f}"
                f"{result.client_cpu:>11.0%}{ratio:>11}"
            )
        for name, rate in (("SET", mode.set_rps), ("EVALSHA 'return 1'", mode.evalsha_rps)):
            shown = f"{rate:>11,.0f}" if rate is not None else f"{'n/a':>11}"
            print(f"{mode.mode:<12}{'redis-benchmark ' + name:<28}{'':>10}{shown}")
    if all(mode.evalsha_rps is None for mode in modes):
        print("(no redis-benchmark on PATH: `apt-get install redis-tools` provides it)")


if __name__ == "__main__":
    main()
