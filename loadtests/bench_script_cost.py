"""Redis's own work per message of the claim and delete scripts.

    python -m loadtests.bench_script_cost [--rounds N] [--batch B] [--instructions]

Claims `--rounds` batches of `--batch` new messages of one standard queue's subscription
(one CLAIM script each), then deletes each batch with its receipts (one DELETE_MESSAGES
script each), on a Redis this script starts itself (`appendfsync always`, as
`tidemq up` runs it). Without `--instructions` it reports the microseconds Redis spent
in the scripts per message (INFO commandstats); those move with whatever else the
machine runs. With `--instructions` the Redis runs under valgrind's callgrind, and the
report is the instructions Redis executed per message: the same count for the same
scripts on every run, so two versions of a script compare on a shared machine (the
server's start, measured by a run with no rounds, is taken off). Slower, about 40 times.
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


def _run(
    rounds: int, batch: int, deletes: bool = True, binary: Path | None = None
) -> tuple[float, float, int]:
    """A run on a Redis of its own: `binary` (a wrapper that runs the server under
    callgrind), or the one `tidemq up` would run."""
    saved = os.environ.get("TIDEMQ_REDIS_SERVER")
    if binary is not None:
        os.environ["TIDEMQ_REDIS_SERVER"] = str(binary)
    try:
        with tempfile.TemporaryDirectory(dir=Path.cwd()) as data:
            server = RedisServer(RedisServerConfig(Path(data)))
            server.start()
            try:
                return asyncio.run(_claim_and_delete(server.url, rounds, batch, deletes))
            finally:
                server.stop()
    finally:
        if saved is None:
            os.environ.pop("TIDEMQ_REDIS_SERVER", None)
        else:
            os.environ["TIDEMQ_REDIS_SERVER"] = saved


def _instructions(rounds: int, batch: int, deletes: bool, work: Path) -> int:
    """Instructions the Redis executed in a whole run under callgrind."""
    out = work / f"callgrind.{rounds}.{int(deletes)}"
    wrapper = work / "redis-under-callgrind"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'exec valgrind --tool=callgrind --callgrind-out-file={out} {find_redis_binary()} "$@"\n'
    )
    wrapper.chmod(0o755)
    _run(rounds, batch, deletes, wrapper)
    found = re.search(r"^summary: (\d+)$", out.read_text(), re.MULTILINE)
    if found is None:
        raise SystemExit(f"callgrind wrote no summary to {out}")
    return int(found.group(1))


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
    with tempfile.TemporaryDirectory() as work_dir:
        work = Path(work_dir)
        start = _instructions(0, args.batch, False, work)
        claims = _instructions(args.rounds, args.batch, False, work) - start
        both = _instructions(args.rounds, args.batch, True, work) - start
    messages = args.rounds * args.batch
    print(
        f"{messages} messages: claim {claims / messages:,.0f} instructions/message, "
        f"delete {(both - claims) / messages:,.0f} instructions/message (Redis, callgrind)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
