"""A local cluster measured: publish and consume throughput by node and gateway count, and
the failover gap.

    python -m loadtests.bench_cluster [--nodes 1,2,3] [--gateways 1,2] [--seconds S]
                                      [--partitions P] [--failover-nodes N] [--json PATH]

For each node count N and gateway count M, a cluster started as `tidemq up --nodes N
--gateways M` starts one (tidemq/cluster/local_cluster.py: an embedded Redis, one
archive, N node and M gateway processes on free loopback ports, `fsync` durability, a
fresh data directory under --dir), and on it a queue of --partitions partitions, so that
every node has some:

  publish   --connections REST workers, each posting batches of --batch-size 256-byte
            messages back to back (`tidemq bench`'s publish_batch_rest), the requests
            taken in turn by the M gateways, for --seconds: acknowledged messages a second.
  consume   the same workers receiving (long poll, up to --batch-size) and deleting what
            they got (`tidemq bench`'s consume_rest), through the M gateways in turn, until
            the queue the publish filled is empty or --seconds are up.

Then the failover gap, on a cluster of --failover-nodes nodes and one gateway with
TIDEMQ_LEASE_TTL_MS=--lease-ttl-ms: --failover-workers workers send batches to a queue of
one partition; after --kill-after seconds the node holding it is SIGKILLed; the gap is
the time from the kill until a send begun after it is acknowledged (the lease must run
out, and the next node take the partition). The sends that were out at the kill and
failed (503: may or may not have been appended, docs/cluster.md) are counted too.

Every run is bounded in time; the load generator runs on the same machine as the cluster.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from tidemq.bench.http_client import HttpClient
from tidemq.bench.load import AsyncStep, Limits, Measured, closed_loop
from tidemq.bench.runs import run_async
from tidemq.bench.servers import (
    BANNER_END,
    BenchError,
    ServerProcess,
    make_token,
    stack_env,
)
from tidemq.bench.workloads import Rest

_BANNER_LINE = re.compile(r"^  (gateway \d+|node \d+)\s{2,}(\S.*)$", re.MULTILINE)
_NODE_PID = re.compile(r"\(pid (\d+)\)$")
VISIBILITY_S = 900  # longer than any run: nothing is redelivered while measuring


@dataclass
class Cluster:
    process: ServerProcess
    gateways: list[str]
    node_pids: list[int]
    env: dict[str, str]
    token: str

    def stop(self) -> None:
        self.process.stop()


@dataclass
class Cell:
    nodes: int
    gateways: int
    publish: Measured
    consume: Measured

    def as_json(self) -> dict[str, Any]:
        return {
            "nodes": self.nodes,
            "gateways": self.gateways,
            **_figures("publish_", self.publish),
            **_figures("consume_", self.consume),
        }


@dataclass
class Failover:
    nodes: int
    lease_ttl_ms: int
    gap_s: float  # NaN: no send begun after the kill was acknowledged within the run
    longest_send_s: float
    sends: int
    errors: int
    first_error: str | None

    def as_json(self) -> dict[str, Any]:
        return {
            "nodes": self.nodes,
            "lease_ttl_ms": self.lease_ttl_ms,
            "gap_s": _number(self.gap_s, 3),
            "longest_send_s": _number(self.longest_send_s, 3),
            "sends": self.sends,
            "errors": self.errors,
            "first_error": self.first_error,
        }


def _figures(prefix: str, measured: Measured) -> dict[str, Any]:
    return {
        f"{prefix}msgs_per_s": _number(measured.msgs_per_s, 1),
        f"{prefix}p50_ms": _number(measured.percentile(50), 2),
        f"{prefix}p99_ms": _number(measured.percentile(99), 2),
        f"{prefix}errors": measured.errors,
    }


def _number(value: float, digits: int) -> float | None:
    return None if math.isnan(value) else round(value, digits)


# -- the cluster --------------------------------------------------------------------------


def _consecutive_free_ports(count: int) -> int:
    """A free port whose next `count - 1` are free too, for the gateways: below Linux's
    ephemeral range (32768 up), where Redis and the nodes get theirs."""
    for _ in range(100):
        first = 20_000 + secrets.randbelow(12_000)
        sockets = []
        try:
            for port in range(first, first + count):
                sock = socket.socket()
                sockets.append(sock)
                sock.bind(("127.0.0.1", port))
        except OSError:
            continue
        finally:
            for sock in sockets:
                sock.close()
        return first
    raise BenchError(f"no {count} consecutive free ports")


def start_cluster(work_dir: Path, nodes: int, gateways: int, lease_ttl_ms: int) -> Cluster:
    name = f"{nodes}n{gateways}g-{secrets.token_hex(2)}"
    env = stack_env(work_dir / name, _consecutive_free_ports(gateways))
    env["TIDEMQ_LEASE_TTL_MS"] = str(lease_ttl_ms)
    argv = [sys.executable, "-m", "tidemq.cli", "up", "--nodes", str(nodes)]
    process = ServerProcess(
        f"tidemq up --nodes {nodes} --gateways {gateways}",
        [*argv, "--gateways", str(gateways)],
        env,
        work_dir / f"{name}.log",
    )
    try:
        process.wait_for(BANNER_END)
        banner = dict(_BANNER_LINE.findall(process.output()))
        urls = [banner[f"gateway {i + 1}"] for i in range(gateways)]
        pids = [_node_pid(banner[f"node {i + 1}"]) for i in range(nodes)]
        token = make_token(work_dir / name, env)
    except BaseException:
        process.stop()
        raise
    return Cluster(process, urls, pids, env, token)


def _node_pid(line: str) -> int:
    found = _NODE_PID.search(line)
    if found is None:
        raise BenchError(f"no pid in the banner's line {line!r}")
    return int(found.group(1))


def _owner_pid(cluster: Cluster, timeout_s: float = 15.0) -> int:
    """The pid of the one node holding partitions (the cluster has one queue of one)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        done = subprocess.run(
            [sys.executable, "-m", "tidemq.cli", "cluster", "status", "--json"],
            env=cluster.env,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        if done.returncode == 0:
            holders = [n for n in json.loads(done.stdout)["nodes"] if n["partitions"]]
            if len(holders) == 1:
                pid: int = holders[0]["pid"]
                return pid
        time.sleep(0.2)
    raise BenchError("no node reported the failover queue's partition")


# -- the measurements ---------------------------------------------------------------------


def _in_turn(steps: list[AsyncStep]) -> AsyncStep:
    """Each call to the next gateway's step: the load spread over the gateways."""
    turns = itertools.cycle(steps)

    async def step() -> int:
        return await next(turns)()

    return step


async def _create_queue(cluster: Cluster, name: str, partitions: int) -> None:
    async with HttpClient(cluster.gateways[0], cluster.token, 2) as http:
        attributes = {"VisibilityTimeout": str(VISIBILITY_S), "Partitions": str(partitions)}
        body = orjson.dumps({"name": name, "attributes": attributes})
        await http.post(f"{http.base}/v1/queues", body)


async def _publish_then_consume(
    cluster: Cluster, queue: str, args: argparse.Namespace
) -> tuple[Measured, Measured]:
    label = f"{len(cluster.node_pids)} nodes, {len(cluster.gateways)} gw"
    # One client a gateway, each with --connections: as many connections to each as
    # the single aiohttp pool of before allowed in all (its limit was per host).
    clients = [HttpClient(url, cluster.token, args.connections) for url in cluster.gateways]
    try:
        rests = [Rest(http, queue, ceiling=False) for http in clients]
        limits = Limits(10**9, args.seconds, args.warmup)
        publish = await closed_loop(
            f"{label} publish",
            _in_turn([rest.publish_batch(args.batch_size) for rest in rests]),
            args.connections,
            limits,
        )
        available = await rests[0].visible()
        consume = await closed_loop(
            f"{label} consume",
            _in_turn([rest.consume(args.batch_size) for rest in rests]),
            args.connections,
            Limits(max(available, 1), args.seconds, args.warmup),
        )
        await rests[0].delete_queue()
    finally:
        for http in clients:
            http.close()
    return publish, consume


def measure_cell(work_dir: Path, nodes: int, gateways: int, args: argparse.Namespace) -> Cell:
    print(f"cluster of {nodes} nodes and {gateways} gateways:", file=sys.stderr)
    cluster = start_cluster(work_dir, nodes, gateways, args.lease_ttl_ms)
    try:
        queue = f"bench-cluster-{secrets.token_hex(3)}"
        run_async(lambda: _create_queue(cluster, queue, args.partitions))
        publish, consume = run_async(lambda: _publish_then_consume(cluster, queue, args))
    finally:
        cluster.stop()
    return Cell(nodes, gateways, publish, consume)


async def _sends_through_a_kill(
    cluster: Cluster, queue: str, owner_pid: int, args: argparse.Namespace
) -> Failover:
    killed_at: list[float] = []
    sends: list[tuple[float, float, bool]] = []  # began, ended, acknowledged
    async with HttpClient(cluster.gateways[0], cluster.token, args.failover_workers) as http:
        publish = Rest(http, queue, ceiling=False).publish_batch(args.batch_size)

        async def step() -> int:
            began = time.perf_counter()
            if not killed_at and began - started >= args.kill_after:
                os.kill(owner_pid, signal.SIGKILL)
                killed_at.append(time.perf_counter())
            try:
                carried = await publish()
            except Exception:
                sends.append((began, time.perf_counter(), False))
                raise
            sends.append((began, time.perf_counter(), True))
            return carried

        started = time.perf_counter()
        seconds = args.kill_after + max(6.0, 3 * args.lease_ttl_ms / 1000)
        measured = await closed_loop(
            "failover", step, args.failover_workers, Limits(10**9, seconds, 0.0)
        )
    if not killed_at:
        raise BenchError("the failover run ended before the kill")
    kill = killed_at[0]
    after = [ended for began, ended, ok in sends if ok and began >= kill]
    return Failover(
        nodes=len(cluster.node_pids),
        lease_ttl_ms=args.lease_ttl_ms,
        gap_s=min(after) - kill if after else math.nan,
        longest_send_s=max((ended - began for began, ended, _ in sends), default=math.nan),
        sends=len(sends),
        errors=measured.errors,
        first_error=measured.first_error,
    )


def measure_failover(work_dir: Path, args: argparse.Namespace) -> Failover:
    nodes = args.failover_nodes
    print(f"failover, {nodes} nodes, lease TTL {args.lease_ttl_ms} ms:", file=sys.stderr)
    cluster = start_cluster(work_dir, nodes, 1, args.lease_ttl_ms)
    try:
        queue = f"bench-failover-{secrets.token_hex(3)}"

        async def first_send() -> None:
            await _create_queue(cluster, queue, 1)
            async with HttpClient(cluster.gateways[0], cluster.token, 1) as http:
                await Rest(http, queue, ceiling=False).publish_batch(1)()

        run_async(first_send)  # the partition's lease is taken on its first use
        owner = _owner_pid(cluster)
        return run_async(lambda: _sends_through_a_kill(cluster, queue, owner, args))
    finally:
        cluster.stop()


# -- the report ---------------------------------------------------------------------------


def table(cells: list[Cell], failover: Failover | None) -> str:
    lines = [
        "| nodes | gateways | publish msgs/s | publish p50 / p99 ms "
        "| consume msgs/s | consume p50 / p99 ms | errors |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for cell in cells:
        p, c = cell.publish, cell.consume
        lines.append(
            f"| {cell.nodes} | {cell.gateways} | {p.msgs_per_s:,.0f} "
            f"| {p.percentile(50):.1f} / {p.percentile(99):.1f} | {c.msgs_per_s:,.0f} "
            f"| {c.percentile(50):.1f} / {c.percentile(99):.1f} | {p.errors + c.errors} |"
        )
    if failover is not None:
        f = failover
        lines += [
            "",
            "| failover | lease TTL | gap: kill -> first send acknowledged "
            "| longest send | sends | failed |",
            "|---|---:|---:|---:|---:|---:|",
            f"| SIGKILL of the owner, {f.nodes} nodes | {f.lease_ttl_ms:,} ms "
            f"| {f.gap_s:.2f} s | {f.longest_send_s:.2f} s | {f.sends} | {f.errors} |",
        ]
    return "\n".join(lines)


def gateway_ratios(cells: list[Cell]) -> list[str]:
    """Consume throughput with 2 gateways over 1, per node count, where both ran."""
    found = {(c.nodes, c.gateways): c.consume.msgs_per_s for c in cells}
    return [
        f"consume with 2 gateways / 1 gateway, {nodes} node{'s' * (nodes > 1)}: "
        f"{found[nodes, 2] / found[nodes, 1]:.2f}"
        for nodes in sorted({c.nodes for c in cells})
        if found.get((nodes, 1)) and (nodes, 2) in found
    ]


def run(args: argparse.Namespace) -> int:
    node_counts = [int(n) for n in args.nodes.split(",")]
    gateway_counts = [int(n) for n in args.gateways.split(",")]
    load_before = os.getloadavg()[0]
    cells: list[Cell] = []
    failover = None
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="tidemq-bench-cluster-") as work:
        try:
            for nodes, gateways in itertools.product(node_counts, gateway_counts):
                cells.append(measure_cell(Path(work), nodes, gateways, args))
            if args.failover_nodes:
                failover = measure_failover(Path(work), args)
        except BenchError as exc:
            print(f"bench_cluster: {exc}", file=sys.stderr)
            return 2
    print(
        f"\n256-byte messages in REST batches of {args.batch_size}, fsync durability, "
        f"{args.connections} connections, a queue of {args.partitions} partitions, "
        f"{args.seconds:g} s a run after {args.warmup:g} s of warm-up; {os.cpu_count()} CPUs, "
        f"1-min load average {load_before:.2f} before and {os.getloadavg()[0]:.2f} after\n"
    )
    print(table(cells, failover))
    ratios = gateway_ratios(cells)
    if ratios:
        print("\n" + "\n".join(ratios))
    if args.json:
        document = {
            "cells": [cell.as_json() for cell in cells],
            "failover": failover.as_json() if failover else None,
        }
        args.json.write_text(json.dumps(document, indent=2) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m loadtests.bench_cluster",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--dir", type=Path, default=Path.cwd(), help="for the data directories")
    parser.add_argument("--nodes", default="1,2,3", help="node counts, in order (1,2,3)")
    parser.add_argument("--gateways", default="1,2", help="gateway counts, in order (1,2)")
    parser.add_argument("--seconds", type=float, default=5.0, help="per run, measured (5)")
    parser.add_argument("--warmup", type=float, default=1.0, help="per run, before (1)")
    parser.add_argument("--connections", type=int, default=32, help="REST workers (32)")
    parser.add_argument("--batch-size", type=int, default=10, help="messages a request (10)")
    parser.add_argument("--partitions", type=int, default=6, help="of the queue (6)")
    parser.add_argument(
        "--failover-nodes", type=int, default=3, help="nodes of the failover run (3; 0: none)"
    )
    parser.add_argument("--failover-workers", type=int, default=4, help="senders (4)")
    parser.add_argument("--lease-ttl-ms", type=int, default=2_000, help="TIDEMQ_LEASE_TTL_MS")
    parser.add_argument("--kill-after", type=float, default=2.0, help="seconds of load (2)")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    if args.failover_nodes == 1:
        parser.error("--failover-nodes: 0 (none) or at least 2: one must take over")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
