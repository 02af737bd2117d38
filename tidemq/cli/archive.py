"""`tidemq archive ls|stat --queue NAME [--json]`: what the archive holds of a queue.

Asks the running TideMQ for `GET /v1/queues/NAME/archive` (tidemq/cli/rest_requests.py:
where, and signed with which key).

- `ls`: one line per archived segment (offsets, times, bytes);
- `stat`: per partition, how much is archived and how far the archive is behind the log.

Exit codes: 0 done, 1 refused (no such queue, no archive), 2 cannot ask (settings,
credentials, TideMQ not reachable).
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

import orjson

from tidemq.cli import rest_requests
from tidemq.cli.rest_requests import CannotAsk
from tidemq.settings import SettingsError


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    archive = commands.add_parser(
        "archive",
        help="what the archive in object storage holds of a queue",
        description="Show a queue's tiered segments (ls) or its archive's summary (stat), "
        "as the running TideMQ reports them; see docs/tiering.md.",
    )
    actions = archive.add_subparsers(dest="archive_command", metavar="ACTION", required=True)
    for action, text in (
        ("ls", "list the archived segments"),
        ("stat", "how much is archived, and how far behind the log"),
    ):
        sub = actions.add_parser(action, help=text, description=text)
        sub.add_argument("--queue", required=True, help="the queue's name")
        sub.add_argument("--json", action="store_true", help="print the answer as JSON")
        rest_requests.add_arguments(sub)


def run(args: argparse.Namespace) -> int:
    command = f"tidemq archive {args.archive_command}"
    try:
        path = f"/v1/queues/{quote(args.queue, safe='')}/archive"
        answer, status = rest_requests.ask(args, "GET", path)
    except (CannotAsk, SettingsError) as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return 2
    if status != 200:
        print(f"{command}: {rest_requests.error_text(answer)}", file=sys.stderr)
        return 1
    if args.json:
        sys.stdout.write(orjson.dumps(answer, option=orjson.OPT_INDENT_2).decode() + "\n")
    elif args.archive_command == "ls":
        _print_segments(answer)
    else:
        _print_summary(args.queue, answer)
    return 0


def _print_segments(answer: dict[str, Any]) -> None:
    print(f"archive {answer['archive']}")
    print(
        f"{'partition':>9} {'base':>12} {'end':>12} {'records':>9} {'bytes':>12}  first .. newest"
    )
    for partition in answer["partitions"]:
        for segment in partition["segments"]:
            print(
                f"{partition['partition']:>9} {segment['base_offset']:>12} "
                f"{segment['end_offset']:>12} {segment['records']:>9} {segment['bytes']:>12}  "
                f"{_time(segment['first_timestamp'])} .. {_time(segment['max_timestamp'])}"
            )


def _print_summary(queue: str, answer: dict[str, Any]) -> None:
    print(f"queue {queue}, archive {answer['archive']}")
    for p in answer["partitions"]:
        print(
            f"  partition {p['partition']}: {len(p['segments'])} segments, "
            f"{p['tiered_bytes']:,} bytes, offsets {p['archive_start_offset']}.."
            f"{p['archive_end_offset']} archived; log {p['log_start_offset']}.."
            f"{p['log_end_offset']} on local disk ({p['local_bytes']:,} bytes); "
            f"{p['records_behind']} records behind; newest archived "
            f"{_time(p['newest_archived_timestamp'])}"
        )


def _time(ms: int | None) -> str:
    if ms is None:
        return "-"
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + "Z"
