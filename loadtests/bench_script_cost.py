"""Redis's own work per message of the claim and delete scripts.

    python -m loadtests.bench_script_cost [--rounds N] [--batch B] [--instructions]

Claims `--rounds` batches of `--batch` new messages of one standard queue's subscription
(one CLAIM script each), then deletes each batch with its receipts (one DELETE_MESSAGES
script each), on a Redis this script starts itself (`appendfsync always`, as
`tidemq up` runs it). Without `--instructions` it reports the microseconds Redis spent
in the scripts per message (INFO commandstats); those move with whatever else the
machine runs. With `--instructions` the Redis runs under valgrind's callgrind, and the
report is the instructions Redis executed per message: for the same scripts the same
count, within a tenth of a percent, on every run, so two versions of a script compare
on a shared machine (the server's start, measured by a run with no rounds, is taken
off). Slower, about 40 times.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import redis

from control_plane.clock import SystemClock
from control_plane.plane import ControlPlane
from tidemq.redis_server import RedisServer, RedisServerConfig, find_redis_binary

SUBSCRIPTION = "5ub5c41b"
VISIBILITY_MS = 300_000  # longer than any run: nothing is redelivered while measuring


async def _claim_and_delete(
    url: str, rounds: int, batch: int, deletes: bool
) -> tuple[float, float, int]:
    """Microseconds Redis spent in the claims and in the deletes, and the messages."""
    plane = await ControlPlane.connect(url, SystemClock())
    stats = redis.Redis.from_url(url)
    try:
        end = rounds * batch
        stats.config_resetstat()
        claims = [
            (await plane.deliveries.claim(SUBSCRIPTION, {0: end}, batch, VISIBILITY_MS)).deliveries
            for _ in range(rounds)
        ]
        claim_us = _script_us(stats)
        stats.config_resetstat()
        for deliveries in claims if deletes else []:
            receipts = [plane.deliveries.verify(SUBSCRIPTION, d.receipt_handle) for d in deliveries]
            if not all(await plane.deliveries.delete(receipts)):
                raise SystemExit("a delete of a message just claimed failed")
        return claim_us, _script_us(stats), sum(len(c) for c in claims)
    finally:
        stats.close()
        await plane.close()


def _script_us(stats: redis.Redis) -> float:
    found = stats.info("commandstats").get("cmdstat_evalsha", {})
    return float(found.get("usec", 0))


def _run(rounds: int, batch: int, deletes: bool = True) -> tuple[float, float, int]:
    """A run on a Redis of its own (the binary TIDEMQ_REDIS_SERVER names, as for
    `tidemq up`)."""
    with tempfile.TemporaryDirectory(dir=Path.cwd()) as data:
        server = RedisServer(RedisServerConfig(Path(data)))
        server.start()
        try:
            return asyncio.run(_claim_and_delete(server.url, rounds, batch, deletes))
        finally:
            server.stop()


def _instructions(rounds: int, batch: int, deletes: bool, binary: Path, wrapper: Path) -> int:
    """Instructions the Redis `binary` executed in a whole run under callgrind (through
    `wrapper`, the binary TIDEMQ_REDIS_SERVER names meanwhile)."""
    out = wrapper.with_name(f"callgrind.{rounds}.{int(deletes)}")
    wrapper.write_text(
        f'#!/bin/sh\nexec valgrind --tool=callgrind --callgrind-out-file={out} {binary} "$@"\n'
    )
    wrapper.chmod(0o755)
    _run(rounds, batch, deletes)
    found = re.search(r"^summary: (\d+)$", out.read_text(), re.MULTILINE)
    if found is None:
        raise SystemExit(f"callgrind wrote no summary to {out}")
    return int(found.group(1))


def _counted_instructions(rounds: int, batch: int) -> tuple[int, int]:
    """Instructions a message of the claims and of the deletes cost Redis; the server's
    own start, a run with no rounds, taken off."""
    binary = find_redis_binary()  # before TIDEMQ_REDIS_SERVER names the wrapper
    saved = os.environ.get("TIDEMQ_REDIS_SERVER")
    with tempfile.TemporaryDirectory() as work:
        wrapper = Path(work) / "redis-under-callgrind"
        os.environ["TIDEMQ_REDIS_SERVER"] = str(wrapper)
        try:
            start = _instructions(0, batch, False, binary, wrapper)
            claims = _instructions(rounds, batch, False, binary, wrapper) - start
            both = _instructions(rounds, batch, True, binary, wrapper) - start
        finally:
            if saved is None:
                os.environ.pop("TIDEMQ_REDIS_SERVER")
            else:
                os.environ["TIDEMQ_REDIS_SERVER"] = saved
    return claims, both - claims


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=500, help="claims, then deletes (500)")
    parser.add_argument("--batch", type=int, default=100, help="messages a script (100)")
    parser.add_argument(
        "--instructions", action="store_true", help="count Redis's instructions (callgrind)"
    )
    args = parser.parse_args(argv)
    if not args.instructions:
        claim_us, delete_us, messages = _run(args.rounds, args.batch)
        print(
            f"{messages} messages: claim {claim_us / messages:.2f} us/message, "
            f"delete {delete_us / messages:.2f} us/message (Redis's time in the scripts)"
        )
        return 0
    if shutil.which("valgrind") is None:
        sys.exit("--instructions needs valgrind on PATH (apt-get install valgrind)")
    claims, deletes = _counted_instructions(args.rounds, args.batch)
    messages = args.rounds * args.batch
    print(
        f"{messages} messages: claim {claims / messages:,.0f} instructions/message, "
        f"delete {deletes / messages:,.0f} instructions/message (Redis, callgrind)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
