"""`tidemq archive ls|stat --queue NAME [--json]`: what the archive holds of a queue.

Asks the running TideMQ (`--endpoint`, default http://<TIDEMQ_HOST>:<TIDEMQ_PORT>) for
`GET /v1/queues/NAME/archive`, signed with AWS Signature V4: the keys in
AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY when set, else TIDEMQ_ACCESS_KEY_ID /
TIDEMQ_SECRET_ACCESS_KEY, else the admin key `tidemq up` keeps in
`<data dir>/credentials.json`.

- `ls`: one line per archived segment (offsets, times, bytes);
- `stat`: per partition, how much is archived and how far the archive is behind the log.

Exit codes: 0 done, 1 refused (no such queue, no archive), 2 cannot ask (settings,
credentials, TideMQ not reachable).
"""

from __future__ import annotations

import argparse
import os
import sys
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials as AwsCredentials

from control_plane.access_keys import DEFAULT_ACCOUNT_ID
from tidemq.settings import Settings, SettingsError

REGION = "us-east-1"
_TIMEOUT_S = 30.0


class _CannotAsk(Exception):
    pass


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
        sub.add_argument("--endpoint", help="TideMQ's URL (default http://TIDEMQ_HOST:TIDEMQ_PORT)")
        sub.add_argument(
            "--data-dir",
            type=Path,
            help="the data directory of `tidemq up`, for its admin key (TIDEMQ_DATA_DIR)",
        )


def run(args: argparse.Namespace) -> int:
    command = f"tidemq archive {args.archive_command}"
    try:
        answer, status = _ask(args)
    except (_CannotAsk, SettingsError) as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return 2
    if status != 200:
        error = answer.get("error", {}) if isinstance(answer, dict) else {}
        print(f"{command}: {error.get('code')}: {error.get('message')}", file=sys.stderr)
        return 1
    if args.json:
        sys.stdout.write(orjson.dumps(answer, option=orjson.OPT_INDENT_2).decode() + "\n")
    elif args.archive_command == "ls":
        _print_segments(answer)
    else:
        _print_summary(args.queue, answer)
    return 0


def _ask(args: argparse.Namespace) -> tuple[Any, int]:
    settings = Settings.load(flags={"data_dir": args.data_dir})
    endpoint = (args.endpoint or f"http://{settings.host}:{settings.port}").rstrip("/")
    if not endpoint.startswith(("http://", "https://")):
        raise _CannotAsk(f"--endpoint {endpoint}: give an http:// or https:// URL")
    url = f"{endpoint}/v1/queues/{quote(args.queue, safe='')}/archive"
    request = AWSRequest(method="GET", url=url)
    SigV4Auth(_credentials(settings), "sqs", REGION).add_auth(request)
    # The scheme is checked above to be http or https.
    http_request = urllib.request.Request(url, headers=dict(request.headers.items()))  # noqa: S310
    try:
        with urllib.request.urlopen(http_request, timeout=_TIMEOUT_S) as response:  # noqa: S310
            status, body = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, body = exc.code, exc.read()
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise _CannotAsk(
            f"cannot reach TideMQ at {endpoint} ({reason}); is `tidemq up` running?"
        ) from exc
    try:
        return orjson.loads(body), status
    except orjson.JSONDecodeError as exc:
        raise _CannotAsk(f"{endpoint} answered {status} without JSON") from exc


def _credentials(settings: Settings) -> AwsCredentials:
    for key_id, secret in (
        (os.environ.get("AWS_ACCESS_KEY_ID"), os.environ.get("AWS_SECRET_ACCESS_KEY")),
        (settings.access_key_id, settings.secret_access_key),
    ):
        if key_id and secret:
            return AwsCredentials(key_id, secret)
    stored = settings.data_dir / "credentials.json"
    try:
        found = orjson.loads(stored.read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        raise _CannotAsk(
            f"no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (a key of account "
            f"{DEFAULT_ACCOUNT_ID} or the queue's), or give --data-dir of `tidemq up` "
            f"(cannot read {stored})"
        ) from exc
    return AwsCredentials(found["access_key_id"], found["secret_access_key"])


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
