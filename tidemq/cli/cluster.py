"""`tidemq cluster status [--json]`: the live nodes and gateways of a cluster
(`tidemq cluster forget-tail`: forget_tail.py).

Which Redis: as `tidemq keys` finds it (tidemq/cli/keys.py): TIDEMQ_REDIS_URL, else the
embedded Redis of the data directory's `tidemq up`.

The JSON: {"nodes": [{"id", "address", "pid", "partitions": [{"stream_id",
"partition", "epoch"}], "registered_ms", "heartbeat_ms", "expires_ms"}], "gateways":
[{"id", "address", "pid", "registered_ms", "heartbeat_ms", "expires_ms"}]}. A node's
partitions are those it held at its last heartbeat.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

import orjson

from control_plane.clock import SystemClock
from control_plane.errors import ControlPlaneError
from control_plane.membership import Membership, Role
from control_plane.process_reports import ProcessReports
from control_plane.redis_client import RedisClient
from tidemq.cli import forget_tail
from tidemq.cli.keys import KeysCliError, control_plane_arguments, control_redis
from tidemq.settings import Settings, SettingsError


def add_parser(commands: Any) -> None:
    cluster = commands.add_parser(
        "cluster",
        help="see a cluster's nodes and gateways; give a dead node's tails up",
        description="See the nodes and gateways of a TideMQ cluster (docs/cluster.md).",
    )
    actions = cluster.add_subparsers(dest="cluster_command", metavar="COMMAND", required=True)
    status = actions.add_parser(
        "status",
        parents=[control_plane_arguments()],
        help="list the live nodes (with their partitions) and gateways",
    )
    status.add_argument("--json", action="store_true", help="print JSON")
    forget_tail.add_arguments(actions)


def run(args: argparse.Namespace) -> int:
    if args.cluster_command == "forget-tail":
        return forget_tail.run(args)
    try:
        settings = Settings.load(
            flags={"data_dir": args.data_dir, "redis_url": args.redis_url},
            config_file=args.config,
        )
        status = asyncio.run(_status(settings))
    except (SettingsError, KeysCliError) as exc:
        print(f"tidemq cluster: {exc}", file=sys.stderr)
        return 2
    except ControlPlaneError as exc:
        print(f"tidemq cluster status: {exc}", file=sys.stderr)
        return 1
    if args.json:
        sys.stdout.write(orjson.dumps(status, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        sys.stdout.write(_text(status))
    return 0


async def _status(settings: Settings) -> dict[str, list[dict[str, Any]]]:
    async with control_redis(settings) as redis:
        return await cluster_status(redis)


async def cluster_status(redis: RedisClient) -> dict[str, list[dict[str, Any]]]:
    """What `tidemq cluster status --json` prints."""
    return {
        "nodes": await _processes(redis, "node"),
        "gateways": await _processes(redis, "gateway"),
    }


async def _processes(redis: RedisClient, role: Role) -> list[dict[str, Any]]:
    live = await Membership(redis, SystemClock(), role).live_nodes()
    reports = ProcessReports(redis)
    found = await reports.read(role, [info.node_id for info in live])
    await reports.prune(role, [info.node_id for info in live])
    processes = []
    for info in live:
        report = found.get(info.node_id, {})
        entry: dict[str, Any] = {"id": info.node_id, "address": info.address}
        entry["pid"] = report.get("pid")
        if role == "node":
            entry["partitions"] = report.get("partitions", [])
        entry |= {
            "registered_ms": info.registered_ms,
            "heartbeat_ms": info.heartbeat_ms,
            "expires_ms": info.expires_ms,
        }
        processes.append(entry)
    return processes


def _text(status: dict[str, list[dict[str, Any]]]) -> str:
    lines = [f"{len(status['nodes'])} node(s):"]
    for node in status["nodes"]:
        partitions = ", ".join(
            f"{p['stream_id']}/{p['partition']}@{p['epoch']}" for p in node["partitions"]
        )
        lines.append(
            f"  {node['id']:<24} {node['address']:<22} pid {node['pid']}  "
            f"partitions: {partitions or '-'}"
        )
    lines.append(f"{len(status['gateways'])} gateway(s):")
    lines.extend(
        f"  {gateway['id']:<24} {gateway['address']:<22} pid {gateway['pid']}"
        for gateway in status["gateways"]
    )
    return "\n".join(lines) + "\n"
