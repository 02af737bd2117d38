"""TideMQ under abuse: how a well-behaved client and the server's memory fare while one
client attacks.

    python -m loadtests.bench_abuse [--endpoint URL --token T --access-key-id K
                                     --secret-access-key S] [--seconds S] [--json PATH]
                                    [--scenarios a,b] [sizes...]

Without --endpoint it starts `tidemq up` in its own process (tidemq/bench/servers.py:
free port, fresh data directory under --dir, `fsync` durability, credentials of its own)
and stops it at the end. A probe process calls SQS ListQueues (signed) --probe-rate
times a second throughout (loadtests/abuse_probe.py). First a baseline with no abuse,
then each scenario for --seconds (loadtests/abuse_scenarios.py):

  query_params     signed Query SendMessage requests of --query-attributes attributes
  send_burst       --send-concurrency REST SendMessage calls in flight at all times
  long_poll_burst  --long-polls REST long polls on an empty queue at once
  slowloris        --slowloris connections trickling headers or a body, a byte a second
  ws_flood         one WebSocket flooding `publish` frames, never reading the answers
  unicode_digits   --bad-requests requests with digits `int` refuses (or SQS would)
  poison_xml       --bad-requests requests carrying NUL and other non-XML characters

For each: the probe's p50/p99 and errors during the abuse; how long after it the server
answered /healthz quickly again (work the attack left queued); and (own server only) the
server's RSS before, at its peak and --settle seconds after that. The targets: p99 under
50 ms during the abuse, RSS after within 20 % of before, no 5xx for the malformed
requests, no failed long poll. docs/performance.md ("Under abuse") has a first run.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import secrets
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import orjson

from loadtests.abuse_probe import Probe, ProbeConfig, ProbeResult, RssSampler, rss_mib
from loadtests.abuse_scenarios import SCENARIOS, AbuseStats, Sizes, Target
from tidemq.bench.cli import add_setting_argument
from tidemq.bench.load import Recorder, percentile, progress
from tidemq.bench.runs import run_async
from tidemq.bench.servers import (
    BenchError,
    Credentials,
    ServerProcess,
    server_settings,
    start_stack,
)

P99_TARGET_MS = 50.0
RSS_TARGET_RATIO = 1.2
RESPONSIVE_MS = 100
QUEUE_ROLES = ("send", "idle", "ws", "digits", "poison")
SIZE_NAMES = tuple(f.name for f in fields(Sizes))


@dataclass
class Row:
    scenario: str
    probe: ProbeResult
    rss: tuple[float, float, float] | None  # before, peak, after (MiB)
    abuse: AbuseStats | None
    recovery_s: float  # from the abuse's end until the server answers quickly again

    @property
    def p50(self) -> float:
        return percentile(sorted(self.probe.latencies_ms), 50)

    @property
    def p99(self) -> float:
        return percentile(sorted(self.probe.latencies_ms), 99)

    @property
    def ratio(self) -> float | None:
        return self.rss[2] / self.rss[0] if self.rss and self.rss[0] else None

    def targets(self) -> dict[str, bool | None]:
        met: dict[str, bool | None] = {
            "p99_under_50ms": self.p99 < P99_TARGET_MS,
            "rss_within_20pct": None if self.ratio is None else self.ratio <= RSS_TARGET_RATIO,
        }
        if self.scenario in ("unicode_digits", "poison_xml") and self.abuse:
            met["no_5xx"] = self.abuse.five_xx == 0
        if self.scenario == "long_poll_burst" and self.abuse:
            refused = set(self.abuse.statuses) - {200}
            met["no_failed_long_poll"] = self.abuse.errors == 0 and not refused
        return met

    def as_json(self) -> dict[str, Any]:
        before, peak, after = self.rss or (None, None, None)
        return {
            "scenario": self.scenario,
            "probe_calls": len(self.probe.latencies_ms),
            "p50_ms": _number(self.p50),
            "p99_ms": _number(self.p99),
            "errors": self.probe.errors,
            "first_error": self.probe.first_error,
            "rss_before_mib": _number(before),
            "rss_peak_mib": _number(peak),
            "rss_after_mib": _number(after),
            "rss_ratio": _number(self.ratio),
            "recovery_s": _number(self.recovery_s),
            "abuse": self.abuse.as_json() if self.abuse else None,
            "targets": self.targets(),
        }


def _number(value: float | None, digits: int = 2) -> float | None:
    return None if value is None or math.isnan(value) else round(value, digits)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    target = parser.add_argument_group("target (as `tidemq bench` takes it)")
    target.add_argument("--endpoint", help="a running TideMQ (default: start `tidemq up`)")
    target.add_argument("--token", default=os.environ.get("TIDEMQ_TOKEN"))
    target.add_argument("--access-key-id", default=os.environ.get("AWS_ACCESS_KEY_ID"))
    target.add_argument("--secret-access-key", default=os.environ.get("AWS_SECRET_ACCESS_KEY"))
    target.add_argument("--dir", type=Path, default=Path.cwd(), help="for the data directory")
    parser.add_argument("--seconds", type=float, default=5.0, help="per scenario (5)")
    parser.add_argument(
        "--settle", type=float, default=2.0, help="RSS 'after': this long after recovery (2)"
    )
    parser.add_argument(
        "--recovery-timeout", type=float, default=120.0, help="wait for recovery at most (120)"
    )
    parser.add_argument("--probe-rate", type=float, default=50.0, help="ListQueues/s (50)")
    parser.add_argument("--scenarios", default=",".join(SCENARIOS), help="subset, in order")
    parser.add_argument("--json", type=Path, help="write the results here")
    add_setting_argument(parser)
    sizes = parser.add_argument_group("sizes")
    for name, value in asdict(Sizes()).items():
        sizes.add_argument(f"--{name.replace('_', '-')}", type=int, default=value)


def _problem(args: argparse.Namespace) -> str | None:
    unknown = [s for s in _chosen(args) if s not in SCENARIOS]
    if unknown:
        return f"unknown scenarios {unknown}; choose from {list(SCENARIOS)}"
    if args.seconds <= 0 or args.probe_rate <= 0 or args.settle < 0 or args.recovery_timeout < 0:
        return "--seconds and --probe-rate must be positive"
    if min(getattr(args, name) for name in SIZE_NAMES) < 1:
        return "sizes must be positive"
    if args.endpoint and not (args.token and args.access_key_id and args.secret_access_key):
        return "--endpoint needs --token, --access-key-id and --secret-access-key"
    if args.endpoint and args.setting:
        return "--setting is for the server the bench starts, not one at --endpoint"
    return None


def _chosen(args: argparse.Namespace) -> list[str]:
    return [s.strip() for s in args.scenarios.split(",") if s.strip()]


async def _queues(endpoint: str, token: str, prefix: str, delete: bool) -> dict[str, str]:
    """Creates (or deletes) the bench's queues; role -> SQS URL."""
    headers = {"Authorization": f"Bearer {token}"}
    urls: dict[str, str] = {}
    async with aiohttp.ClientSession(headers=headers) as session:
        for role in QUEUE_ROLES:
            name = f"{prefix}-{role}"
            if delete:
                async with session.delete(f"{endpoint}/v1/queues/{name}") as response:
                    await response.read()
                continue
            body = orjson.dumps({"name": name})
            async with session.post(f"{endpoint}/v1/queues", data=body) as response:
                answer = await response.read()
                if response.status not in (200, 201):
                    raise BenchError(f"cannot create queue {name}: {response.status} {answer!r}")
                urls[role] = orjson.loads(answer)["url"]
    return urls


class Bench:
    def __init__(self, args: argparse.Namespace, target: Target, server_pid: int | None) -> None:
        self.args = args
        self.target = target
        self.pid = server_pid
        self.sizes = Sizes(**{name: getattr(args, name) for name in SIZE_NAMES})

    def _rss(self) -> float | None:
        return rss_mib(self.pid) if self.pid else None

    def scenario(self, probe: Probe, name: str) -> Row:
        print(f"{name}:", file=sys.stderr)
        before = self._rss()
        sampler = RssSampler(self.pid).start() if self.pid else None
        abuse: AbuseStats | None = None
        try:
            probe.measure()
            if name == "baseline":
                recorder_sleep(self.args.seconds)
            else:
                seconds = self.args.seconds
                abuse = run_async(lambda: SCENARIOS[name](self.target, self.sizes, seconds))
            ended = time.monotonic()
            result = probe.result()
            responsive = responsive_at(self.target.endpoint, ended + self.args.recovery_timeout)
            recovery_s = responsive - ended
        finally:
            peak = sampler.stop() if sampler else None
        time.sleep(self.args.settle)
        after = self._rss()
        rss = (before, peak, after) if before and peak and after else None
        row = Row(name, result, rss, abuse, recovery_s)
        summary = f"; abuse: {abuse.summary()}" if abuse else ""
        print(
            f"  probe: {len(result.latencies_ms)} calls, p50 {row.p50:.1f} ms, "
            f"p99 {row.p99:.1f} ms, {result.errors} errors; responsive again after "
            f"{recovery_s:.1f} s{summary}",
            file=sys.stderr,
        )
        return row


def responsive_at(endpoint: str, deadline: float) -> float:
    """When (monotonic) the server answered /healthz within RESPONSIVE_MS the first of
    three times in a row (work an attack left queued is done); `deadline` at the latest."""
    parts = urlsplit(endpoint)
    quick: list[float] = []
    while len(quick) < 3 and (left := deadline - time.monotonic()) > 0:
        connection = http.client.HTTPConnection(
            parts.hostname or "127.0.0.1", parts.port or 80, timeout=max(0.1, left)
        )
        asked = time.monotonic()
        try:
            connection.request("GET", "/healthz")
            ok = connection.getresponse().status == 200
        except (OSError, http.client.HTTPException):
            ok = False
        finally:
            connection.close()
        if ok and time.monotonic() - asked < RESPONSIVE_MS / 1000:
            quick.append(asked)
        else:
            quick.clear()
        time.sleep(0.1)
    return quick[0] if len(quick) == 3 else time.monotonic()


def recorder_sleep(seconds: float) -> None:
    """The baseline: nothing but the probe, with a progress bar of the time."""
    with progress("baseline", Recorder(), 1, seconds):
        time.sleep(seconds)


def print_table(rows: list[Row], load_before: float, memory: bool) -> None:
    print()
    print(
        f"Probe: SQS ListQueues, signed, one connection; {os.cpu_count()} CPUs, 1-min load "
        f"average {load_before:.2f} before and {os.getloadavg()[0]:.2f} after the run"
        + ("" if memory else "; memory is not measured (--endpoint)")
    )
    header = (
        f"{'scenario':<16} {'p50 ms':>7} {'p99 ms':>8} {'errors':>6} {'RSS before':>10} "
        f"{'peak':>7} {'after':>7} {'ratio':>6} {'recover s':>9}  targets"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        before, peak, after = (f"{v:.1f}" for v in row.rss) if row.rss else ("-",) * 3
        ratio = f"{row.ratio:.2f}" if row.ratio is not None else "-"
        verdicts = ", ".join(
            f"{name} {'met' if met else 'MISSED'}"
            for name, met in row.targets().items()
            if met is not None
        )
        print(
            f"{row.scenario:<16} {row.p50:>7.1f} {row.p99:>8.1f} {row.probe.errors:>6} "
            f"{before:>10} {peak:>7} {after:>7} {ratio:>6} {row.recovery_s:>9.1f}  {verdicts}"
        )
    for row in rows:
        if row.abuse:
            print(f"  {row.scenario}: {row.abuse.summary()}")
        if row.probe.first_error:
            print(f"! {row.scenario}: probe's first error: {row.probe.first_error}")


def run(args: argparse.Namespace) -> int:
    problem = _problem(args)
    if problem:
        print(f"bench_abuse: {problem}", file=sys.stderr)
        return 2
    args.dir.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()[0]
    prefix = f"abuse-{secrets.token_hex(3)}"
    rows: list[Row] = []
    server: ServerProcess | None = None
    probe: Probe | None = None
    with tempfile.TemporaryDirectory(prefix="tidemq-abuse-", dir=args.dir) as tmp:
        try:
            if args.endpoint:
                endpoint = args.endpoint.rstrip("/")
                key = Credentials(args.access_key_id, args.secret_access_key, args.token)
            else:
                server, endpoint, key = start_stack(Path(tmp), server_settings(args.setting))
            where = f"pid {server.pid}" if server else "memory not measured"
            print(f"TideMQ at {endpoint} ({where})", file=sys.stderr)
            urls = run_async(lambda: _queues(endpoint, key.token, prefix, delete=False))
            queues = {role: f"{prefix}-{role}" for role in QUEUE_ROLES}
            bench = Bench(args, Target(endpoint, key, queues, urls), server.pid if server else None)
            probe = Probe(
                ProbeConfig(
                    endpoint, prefix, key.access_key_id, key.secret_access_key, args.probe_rate
                )
            )
            start_rss = bench._rss()
            for name in ["baseline", *_chosen(args)]:
                rows.append(bench.scenario(probe, name))
            end_rss = bench._rss()
            if args.endpoint:
                run_async(lambda: _queues(endpoint, key.token, prefix, delete=True))
        except (BenchError, RuntimeError) as exc:
            print(f"bench_abuse: {exc}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print("\nbench_abuse: interrupted", file=sys.stderr)
            return 130
        finally:
            if probe is not None:
                probe.close()
            if server is not None:
                server.stop()
    print_table(rows, load_before, memory=server is not None)
    if start_rss and end_rss:
        print(f"RSS at the start {start_rss:.1f} MiB, at the end {end_rss:.1f} MiB")
    if args.json:
        report = {
            "endpoint": endpoint,
            "seconds": args.seconds,
            "cpus": os.cpu_count(),
            "load_before": round(load_before, 2),
            "load_after": round(os.getloadavg()[0], 2),
            "memory_measured": server is not None,
            "rss_start_mib": _number(start_rss),
            "rss_end_mib": _number(end_rss),
            "sizes": asdict(bench.sizes),
            "scenarios": [row.as_json() for row in rows],
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")
        print(f"Wrote {args.json}.")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m loadtests.bench_abuse",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
