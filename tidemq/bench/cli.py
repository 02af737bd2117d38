"""`tidemq bench`: throughput and latency of TideMQ's hot path, beside a ceiling.

    tidemq bench [--endpoint URL] [--json PATH] [--seconds S] [--messages N] ...
    python -m tidemq.bench ...

Starts `tidemq up` in its own process (free port, fresh data directory, `fsync`
durability), or targets --endpoint; starts the ceiling app (tidemq/bench/ceiling.py,
a bare Starlette POST endpoint under the gateway's uvicorn settings); runs each workload
against TideMQ and then the same requests against the ceiling, with 256-byte messages;
prints one table and, with --json, writes one object per workload. docs/performance.md
has the results and what they mean.

Workloads (each bounded by --messages and by --warmup plus --seconds):
  publish_single_rest             one message per request, as fast as it goes
  publish_single_rest_fixed_rate  the same at --rate requests a second, open loop
  publish_batch_rest              --batch-size messages per request
  publish_batch_sqs               SendMessageBatch of 10 through boto3
  consume_rest                    receive --batch-size (long poll) + delete them
  consume_sqs                     ReceiveMessage 10 + DeleteMessageBatch through boto3
  publish_ws                      --batch-size messages per `publish` frame over WebSocket
  consume_ws                      WebSocket subscription (credit 2 x --batch-size), each
                                  pushed batch acked in one frame
  e2e_ws                          single REST publishes at --rate, each timed from its
                                  intended send time until a subscribed WebSocket is
                                  pushed it (one process, one clock)
  ceiling                         the ceiling app, one 256-byte message per request
The consume workloads read what the publish workloads left, topped up to --messages.

With --peer redis, the bench also starts the bundled Redis server (free port, temporary
directory, appendonly yes, appendfsync always) and runs the same shapes against Redis
Streams (tidemq/bench/redis_peer.py): pipelined XADD batches beside publish_batch_rest,
XREADGROUP + XACK beside consume_rest and consume_ws, single XADDs at --rate beside
publish_single_rest_fixed_rate; the table shows TideMQ's ratio to it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from tidemq.bench.report import print_table

WORKLOADS = (
    "publish_single_rest",
    "publish_single_rest_fixed_rate",
    "publish_batch_rest",
    "publish_batch_sqs",
    "consume_rest",
    "consume_sqs",
    "publish_ws",
    "consume_ws",
    "e2e_ws",
    "ceiling",
)
PEERS = ("redis",)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    target = parser.add_argument_group("target")
    target.add_argument(
        "--endpoint", help="a running TideMQ to measure (default: start `tidemq up` for the run)"
    )
    target.add_argument(
        "--token",
        default=os.environ.get("TIDEMQ_TOKEN"),
        help="REST bearer token with --endpoint (TIDEMQ_TOKEN; from `tidemq keys token`)",
    )
    target.add_argument(
        "--access-key-id",
        default=os.environ.get("AWS_ACCESS_KEY_ID"),
        help="access key for boto3 with --endpoint (AWS_ACCESS_KEY_ID)",
    )
    target.add_argument(
        "--secret-access-key",
        default=os.environ.get("AWS_SECRET_ACCESS_KEY"),
        help="its secret (AWS_SECRET_ACCESS_KEY)",
    )
    target.add_argument(
        "--dir",
        type=Path,
        default=Path.cwd(),
        help="where the temporary data directory goes; its disk's fsync is measured "
        "(default: the current directory)",
    )
    load = parser.add_argument_group("load")
    load.add_argument(
        "--workloads",
        default=",".join(WORKLOADS),
        help="comma-separated subset, in any order (default: all)",
    )
    load.add_argument("--connections", type=int, default=32, help="HTTP connections (32)")
    load.add_argument("--batch-size", type=int, default=100, help="REST batch size (100)")
    load.add_argument(
        "--rate", type=float, default=1000.0, help="offered msgs/s of the fixed-rate run (1000)"
    )
    load.add_argument(
        "--sqs-threads", type=int, default=8, help="boto3 threads, one client each (8)"
    )
    load.add_argument(
        "--seconds", type=float, default=5.0, help="measured time per run, at most (5)"
    )
    load.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds first (1)")
    load.add_argument(
        "--messages",
        type=int,
        default=200_000,
        help="messages per run, at most, the warm-up's included (200000)",
    )
    parser.add_argument(
        "--peer",
        choices=PEERS,
        help="also run the batched publish, consume + ack and fixed-rate single-publish "
        "shapes against this peer, started for the run: `redis`, Redis Streams on the "
        "bundled server with appendfsync always",
    )
    parser.add_argument("--json", type=Path, help="write the results here as JSON")
    add_setting_argument(parser)


def add_setting_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--setting",
        action="append",
        default=[],
        metavar="TIDEMQ_NAME=VALUE",
        help="a setting of the `tidemq up` the bench starts (repeatable; the developer's "
        "own TIDEMQ_* variables never reach it), to measure it against the default",
    )


def invalid(args: argparse.Namespace) -> str | None:
    """Why the bench cannot run with these arguments here, or None."""
    chosen = workloads(args)
    unknown = sorted(set(chosen) - set(WORKLOADS))
    if unknown or not chosen:
        return f"unknown workloads {unknown}; choose from {WORKLOADS}"
    if min(args.connections, args.batch_size, args.sqs_threads, args.messages) < 1 or (
        args.seconds <= 0 or args.rate <= 0 or args.warmup < 0
    ):
        return "counts, --seconds and --rate must be positive"
    if args.endpoint and not (args.token and args.access_key_id and args.secret_access_key):
        return (
            "--endpoint needs --token and --access-key-id/--secret-access-key "
            "(or TIDEMQ_TOKEN, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)"
        )
    if args.endpoint and args.setting:
        return "--setting is for the `tidemq up` the bench starts, not one at --endpoint"
    return None


def workloads(args: argparse.Namespace) -> list[str]:
    return [w.strip() for w in args.workloads.split(",") if w.strip()]


def run(args: argparse.Namespace) -> int:
    problem = invalid(args)
    if problem is not None:
        print(f"tidemq bench: {problem}", file=sys.stderr)
        return 2
    # Imported here, so that `tidemq --help` does not load the benchmark's HTTP clients.
    from tidemq.bench.servers import (  # noqa: PLC0415
        BenchError,
        Credentials,
        server_settings,
        start_ceiling,
        start_stack,
    )

    chosen = workloads(args)
    args.dir.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="tidemq-bench-", dir=args.dir) as tmp:
        work = Path(tmp)
        stack = ceiling_server = peer_server = None
        try:
            ceiling_server, ceiling_url = start_ceiling(work)
            peer_port = None
            if args.peer == "redis":
                from tidemq.bench.redis_peer import start_redis_peer  # noqa: PLC0415

                peer_server = start_redis_peer(work)
                peer_port = peer_server.port
                print(
                    f"Redis Streams peer at 127.0.0.1:{peer_port} (pid {peer_server.pid}, "
                    "appendfsync always)",
                    file=sys.stderr,
                )
            if args.endpoint:
                endpoint = args.endpoint.rstrip("/")
                credentials = Credentials(args.access_key_id, args.secret_access_key, args.token)
            else:
                stack, endpoint, credentials = start_stack(work, server_settings(args.setting))
            where = f"pid {stack.pid}, " if stack else ""
            print(f"TideMQ at {endpoint} ({where}fsync durability)", file=sys.stderr)
            print(f"ceiling at {ceiling_url} (pid {ceiling_server.pid})", file=sys.stderr)
            from tidemq.bench.runs import Runs  # noqa: PLC0415 - needs aiohttp, boto3

            rows = Runs(args, endpoint, credentials, ceiling_url, peer_port, probe_dir=work).run(
                chosen
            )
        except BenchError as exc:
            print(f"tidemq bench: {exc}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print("\ntidemq bench: interrupted", file=sys.stderr)
            return 130
        finally:
            for server in (stack, ceiling_server):
                if server is not None:
                    server.stop()
            if peer_server is not None:
                peer_server.stop()
    print_table(rows, args, load_before)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps([row.as_json(args.peer) for row in rows], indent=2) + "\n")
        print(f"Wrote {args.json}.")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="tidemq bench", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
