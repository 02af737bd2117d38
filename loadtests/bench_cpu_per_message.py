"""What a message costs the whole machine: TideMQ against the Redis Streams peer.

    python -m loadtests.bench_cpu_per_message [--messages N] [--rounds R]

`tidemq bench --peer redis` compares rates; on a machine whose cores the load
generator, the server and Redis share, a rate says little about why. This measures, for
the batched publish and the consume + ack of `tidemq bench` (the same clients, shapes
and connection count: publish_batch_rest and consume_rest, and the peer's pipelined
XADD and XREADGROUP + XACK), the CPU time each process spends per message:

- the load generator (this process: the bench's HTTP client, or its RESP client);
- TideMQ's server, a `tidemq up` this script starts (fsync durability, a fresh data
  directory), split into its event loop (the main thread, where every request is
  handled) and its other threads (the log's I/O thread, tiering);
- the Redis of each: `tidemq up`'s control plane, and the peer (the bundled server,
  `appendfsync always`, started as the bench starts it).

An event loop is one thread, so it handles at most 1 / (its CPU per message) messages
a second however many cores there are; Redis too. The report ends with that bound for
TideMQ's event loop next to the peer's measured rate. Each round publishes
`--messages`, then consumes them, on each side.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tidemq.bench.http_client import HttpClient
from tidemq.bench.load import AsyncStep, Limits, Measured, closed_loop
from tidemq.bench.redis_peer import RedisStreams, start_redis_peer
from tidemq.bench.runs import run_async
from tidemq.bench.servers import start_stack
from tidemq.bench.workloads import Rest

CONNECTIONS = 32  # as `tidemq bench`'s default
BATCH = 100  # messages a request, a pipelined step, a receive
RUN_SECONDS = 60.0  # a bound only: a run ends when its messages are handled
_TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def _cpu_seconds(stat: Path) -> float:
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS_PER_S  # utime + stime


def _process_seconds(pid: int) -> tuple[float, float]:
    """CPU seconds of `pid`'s main thread, and of its other threads (those that ended
    included: the process's own figure counts them)."""
    main = _cpu_seconds(Path(f"/proc/{pid}/task/{pid}/stat"))
    # (Read a moment apart: never below zero.)
    return main, max(_cpu_seconds(Path(f"/proc/{pid}/stat")) - main, 0.0)


def _redis_child(pid: int) -> int:
    """The Redis server `tidemq up` (process `pid`) started."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            if Path(f"/proc/{child}/comm").read_text().strip() in ("redis-server", "valkey-server"):
                return int(child)
    raise SystemExit(f"tidemq up (pid {pid}) has no Redis server among its children")


def _own_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Cost:
    """One workload's run: messages a second and CPU microseconds a message by part."""

    name: str
    msgs_per_s: float
    us_per_message: dict[str, float]

    @property
    def total_us(self) -> float:
        return sum(self.us_per_message.values())


def _measure(name: str, run: Callable[[], Measured], parts: dict[str, Callable[[], float]]) -> Cost:
    """`run` once, with each of `parts` (a CPU-seconds counter) read before and after."""
    before = {part: read() for part, read in parts.items()}
    started = time.perf_counter()
    measured = run()
    elapsed = time.perf_counter() - started
    if measured.errors or measured.messages == 0:
        raise SystemExit(f"{name}: {measured.errors} errors ({measured.first_error})")
    spent = {part: max(read() - before[part], 0.0) for part, read in parts.items()}
    return Cost(
        name,
        measured.messages / elapsed,
        {part: seconds * 1e6 / measured.messages for part, seconds in spent.items()},
    )


def _tidemq_round(endpoint: str, token: str, server_pid: int, redis_pid: int, n: int) -> list[Cost]:
    queue = f"cpu-{os.getpid()}-{time.monotonic_ns()}"
    parts = {
        "load generator": _own_seconds,
        "server loop": lambda: _process_seconds(server_pid)[0],
        "server threads": lambda: _process_seconds(server_pid)[1],
        "redis": lambda: sum(_process_seconds(redis_pid)),
    }
    limits = Limits(n, RUN_SECONDS, 0.0)

    def rest_run(make: Callable[[Rest], AsyncStep]) -> Measured:
        async def go() -> Measured:
            async with HttpClient(endpoint, token, CONNECTIONS) as http:
                return await closed_loop(queue, make(Rest(http, queue, False)), CONNECTIONS, limits)

        return run_async(go)

    async def create() -> None:
        async with HttpClient(endpoint, token, 1) as http:
            await Rest(http, queue, False).create()

    run_async(create)
    publish = _measure(
        "TideMQ publish_batch_rest", lambda: rest_run(lambda r: r.publish_batch(BATCH)), parts
    )
    consume = _measure("TideMQ consume_rest", lambda: rest_run(lambda r: r.consume(BATCH)), parts)
    return [publish, consume]


def _peer_round(port: int, redis_pid: int, n: int) -> list[Cost]:
    parts = {"load generator": _own_seconds, "redis": lambda: sum(_process_seconds(redis_pid))}
    limits = Limits(n, RUN_SECONDS, 0.0)
    stream = f"cpu-{time.monotonic_ns()}"

    def peer_run(make: Callable[[RedisStreams], AsyncStep]) -> Measured:
        async def go() -> Measured:
            redis = RedisStreams(port)
            await redis.open(CONNECTIONS)
            try:
                return await closed_loop(stream, make(redis), CONNECTIONS, limits)
            finally:
                await redis.close()

        return run_async(go)

    async def make_group() -> None:
        redis = RedisStreams(port)
        await redis.open(1)
        try:
            await redis.fill(stream, 0)  # the stream and its group, empty
        finally:
            await redis.close()

    run_async(make_group)
    publish = _measure(
        "peer batched XADD", lambda: peer_run(lambda r: r.publish(stream, BATCH)), parts
    )
    consume = _measure(
        "peer XREADGROUP + XACK", lambda: peer_run(lambda r: r.consume(stream, BATCH)), parts
    )
    return [publish, consume]


def _print(costs: list[Cost]) -> None:
    columns = ["load generator", "server loop", "server threads", "redis"]
    print(f"{'run':<28}{'msgs/s':>10}  CPU us a message: " + ", ".join(columns) + ", total")
    for cost in costs:
        figures = [
            f"{cost.us_per_message[c]:.2f}" if c in cost.us_per_message else "-" for c in columns
        ]
        print(
            f"{cost.name:<28}{cost.msgs_per_s:>10,.0f}  "
            + "  ".join(figures)
            + f"  {cost.total_us:.2f}"
        )


def _bounds(costs: list[Cost]) -> None:
    by_name = {cost.name: cost for cost in costs}
    for ours, peer in (
        ("TideMQ publish_batch_rest", "peer batched XADD"),
        ("TideMQ consume_rest", "peer XREADGROUP + XACK"),
    ):
        loop_us = by_name[ours].us_per_message["server loop"]
        print(
            f"{ours}: the event loop's {loop_us:.2f} us a message allow at most "
            f"{1e6 / loop_us:,.0f} msgs/s on one core; {peer} ran at "
            f"{by_name[peer].msgs_per_s:,.0f} ({by_name[peer].total_us:.2f} us a message "
            "in all its processes)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--messages", type=int, default=200_000, help="a run's (200000)")
    parser.add_argument("--rounds", type=int, default=3, help="of all four runs (3)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tidemq-cpu-") as work:
        work_dir = Path(work)
        (work_dir / "tidemq").mkdir()
        server, endpoint, credentials = start_stack(work_dir / "tidemq")
        peer = start_redis_peer(work_dir)
        try:
            redis_pid = _redis_child(server.pid)
            assert peer.pid is not None
            for round_number in range(1, args.rounds + 1):
                print(f"round {round_number} of {args.rounds}:", file=sys.stderr)
                costs = _tidemq_round(
                    endpoint, credentials.token, server.pid, redis_pid, args.messages
                )
                costs += _peer_round(peer.port, peer.pid, args.messages)
                print(f"round {round_number}")
                _print(costs)
                _bounds(costs)
        finally:
            peer.stop()
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
