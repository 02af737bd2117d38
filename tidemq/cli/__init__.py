"""The `tidemq` command."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable
from pathlib import Path

from gateway.rest import openapi
from gateway.ws import asyncapi
from tidemq import __version__, logs
from tidemq.allocator import use_system_allocator
from tidemq.bench import cli as bench_cli
from tidemq.cli import archive as archive_cli
from tidemq.cli import cluster as cluster_cli
from tidemq.cli import keys as keys_cli
from tidemq.cli import messages as messages_cli
from tidemq.cli import queues as queues_cli
from tidemq.cli import redrive as redrive_cli
from tidemq.cli import tail as tail_cli
from tidemq.cli import topics as topics_cli
from tidemq.cluster import gateway_process, local_cluster, node_process
from tidemq.embedded import LaunchError, run
from tidemq.redis_server import RedisServerError
from tidemq.settings import NODE_HTTP_PORT, Settings, SettingsError

# The commands that run servers: they log at INFO, the others only warnings.
_SERVERS = ("up", "node", "gateway")


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    logs.configure(logging.INFO if args.command in _SERVERS else logging.WARNING)
    commands: dict[str, Callable[[argparse.Namespace], int]] = {
        "up": _up,
        "node": lambda a: _serve(a, "node", node_process.run),
        "gateway": lambda a: _serve(a, "gateway", gateway_process.run),
        "cluster": cluster_cli.run,
        "keys": keys_cli.run,
        "archive": archive_cli.run,
        "topic": topics_cli.run,
        "queue": queues_cli.run,
        "stats": queues_cli.run_stats,
        "send": messages_cli.run_send,
        "receive": messages_cli.run_receive,
        "tail": tail_cli.run,
        "redrive": redrive_cli.run,
        "bench": bench_cli.run,
        "openapi": lambda a: _write_document(
            a.output, openapi.document_bytes(), "OpenAPI", "openapi"
        ),
        "asyncapi": lambda a: _write_document(
            a.output, asyncapi.document_bytes(), "AsyncAPI", "asyncapi"
        ),
    }
    command = commands.get(args.command)
    if command is None:
        parser.print_help()
        return 2
    return command(args)


def _up(args: argparse.Namespace) -> int:
    try:
        settings = Settings.load(
            flags={"host": args.host, "port": args.port, "data_dir": args.data_dir},
            config_file=args.config,
        )
        logs.configure(logging.INFO, settings.log_format)
        _check_fixed_port(settings)
        if args.nodes is None and args.gateways is None:
            # Once the settings are known to be good, so that a mistake is reported once.
            if settings.allocator == "system":
                use_system_allocator()  # starts this command again, with PYTHONMALLOC set
            run(settings)
        else:
            local_cluster.run(settings, args.nodes or 1, args.gateways or 1)
    except (SettingsError, LaunchError, RedisServerError) as exc:
        print(f"tidemq up: {exc}", file=sys.stderr)
        return 2
    return 0


def _serve(args: argparse.Namespace, command: str, serve: Callable[[Settings], None]) -> int:
    """`tidemq node` and `tidemq gateway`: a process of a cluster (docs/cluster.md)."""
    try:
        settings = Settings.load(
            flags={"host": args.host, "port": args.port, "data_dir": args.data_dir},
            config_file=args.config,
            defaults=Settings(port=NODE_HTTP_PORT) if command == "node" else None,
        )
        logs.configure(logging.INFO, settings.log_format)
        if command == "gateway":
            _check_fixed_port(settings)
            if settings.allocator == "system":
                use_system_allocator()  # as `tidemq up`
        serve(settings)
    except (SettingsError, LaunchError) as exc:
        print(f"tidemq {command}: {exc}", file=sys.stderr)
        return 2
    return 0


def _check_fixed_port(settings: Settings) -> None:
    """A gateway prints its endpoint (and builds queue URLs) before it listens: port 0
    (any free port) is for nodes only."""
    if settings.port == 0:
        raise SettingsError("port 0 (any free port) is for tidemq node only; give a port")


def _write_document(output: Path, document: bytes, kind: str, command: str) -> int:
    """Writes an API document, the same bytes the gateway serves."""
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_bytes(document)
    except OSError as exc:
        print(f"tidemq {command}: cannot write {output}: {exc.strerror}", file=sys.stderr)
        return 1
    print(f"Wrote the {kind} document to {output}.")
    return 0


def _add_bench_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bench = commands.add_parser(
        "bench",
        help="measure publish and consume throughput and latency",
        description="Benchmark the hot path against a bare Starlette ceiling; "
        "see docs/performance.md.",
    )
    bench_cli.add_arguments(bench)


def _add_cluster_process_parsers(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    for command, help_text, port_help in (
        (
            "node",
            "run a storage node of a cluster (needs TIDEMQ_REDIS_URL)",
            f"port of its HTTP for operators: /healthz, /readyz, /metrics (TIDEMQ_PORT; "
            f"default {NODE_HTTP_PORT}; 0 for any free port); gateways reach it on "
            "TIDEMQ_NODE_PORT",
        ),
        (
            "gateway",
            "run a gateway of a cluster, with no storage (needs TIDEMQ_REDIS_URL and "
            "TIDEMQ_MASTER_KEY)",
            "port to listen on (TIDEMQ_PORT; default 9324)",
        ),
    ):
        parser = commands.add_parser(
            command,
            help=help_text,
            description=f"{help_text[0].upper()}{help_text[1:]}. Settings as for `tidemq up`; "
            "see docs/cluster.md.",
        )
        parser.add_argument("--host", help="address to listen on (TIDEMQ_HOST)")
        parser.add_argument("--port", type=int, help=port_help)
        parser.add_argument("--data-dir", type=Path, help="where data is kept (TIDEMQ_DATA_DIR)")
        parser.add_argument("--config", type=Path, help="a TOML settings file (TIDEMQ_CONFIG)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tidemq",
        description="TideMQ: SQS-compatible messaging on a durable partitioned log.",
    )
    parser.add_argument("--version", action="version", version=f"tidemq {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    up = commands.add_parser(
        "up",
        help="run everything on this machine (gateway, storage node, embedded Redis)",
        description="Run TideMQ on this machine. Settings: flags, then TIDEMQ_* environment "
        "variables, then the TOML file given by --config or TIDEMQ_CONFIG.",
    )
    up.add_argument("--host", help="address to listen on (TIDEMQ_HOST; default 127.0.0.1)")
    up.add_argument("--port", type=int, help="port to listen on (TIDEMQ_PORT; default 9324)")
    up.add_argument(
        "--data-dir", type=Path, help="where data is kept (TIDEMQ_DATA_DIR; default ./.tidemq)"
    )
    up.add_argument("--config", type=Path, help="a TOML settings file (TIDEMQ_CONFIG)")
    up.add_argument(
        "--nodes",
        type=int,
        help="run a local cluster of this many storage node processes (docs/cluster.md)",
    )
    up.add_argument(
        "--gateways",
        type=int,
        help="... and this many gateway processes, on consecutive ports from --port",
    )
    _add_cluster_process_parsers(commands)
    cluster_cli.add_parser(commands)
    keys_cli.add_parser(commands)
    archive_cli.add_parser(commands)
    topics_cli.add_parser(commands)
    queues_cli.add_parsers(commands)
    messages_cli.add_parsers(commands)
    tail_cli.add_parser(commands)
    redrive_cli.add_parser(commands)
    _add_bench_parser(commands)
    for command, kind, served_at in (
        ("openapi", "OpenAPI 3.1 document of the REST API", "/openapi.json"),
        ("asyncapi", "AsyncAPI 3.0 document of the WebSocket API", "/asyncapi.json"),
    ):
        document = commands.add_parser(
            command,
            help=f"write the {kind}",
            description=f"Write the {kind}, the one the gateway serves at {served_at}.",
        )
        document.add_argument(
            "--output",
            type=Path,
            default=Path(f"sdk/{command}.json"),
            help=f"where to write it (default sdk/{command}.json)",
        )
    return parser
