"""`tidemq topic seek TOPIC SUBSCRIPTION (--offset N | --time ISO)`: replay a pull
subscription, or skip it ahead (docs/topics.md, "Replay").

Asks the running TideMQ (tidemq/cli/rest_requests.py: where, and signed with which key)
for the subscription, checks that it is one of TOPIC's, then asks for
`POST /v1/subscriptions/ID/seek`. SUBSCRIPTION is the subscription's id or its ARN. A
time without a zone is taken as UTC.

Exit codes: 0 done, 1 refused (no such topic or subscription, not a pull subscription,
an offset outside the log), 2 cannot ask (settings, credentials, TideMQ not reachable).
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

from tidemq.cli import rest_requests
from tidemq.cli.rest_requests import CannotAsk
from tidemq.settings import SettingsError

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    topic = commands.add_parser(
        "topic",
        help="replay a topic's pull subscription",
        description="Act on a running TideMQ's topics; see docs/topics.md.",
    )
    actions = topic.add_subparsers(dest="topic_command", metavar="ACTION", required=True)
    seek = actions.add_parser(
        "seek",
        help="move a pull subscription's cursor to an offset or a time",
        description="Move a pull subscription's cursor: every message from there on is "
        "delivered again, and what it had in flight is forgotten.",
    )
    seek.add_argument("topic", help="the topic's name")
    seek.add_argument("subscription", help="the subscription's id (or ARN)")
    where = seek.add_mutually_exclusive_group(required=True)
    where.add_argument("--offset", type=_offset, help="an offset of the topic's log")
    where.add_argument(
        "--time",
        type=_time_ms,
        metavar="ISO",
        help="the first message published at or after this time, e.g. 2026-05-01T12:00:00Z",
    )
    rest_requests.add_arguments(seek)


def run(args: argparse.Namespace) -> int:
    command = f"tidemq topic {args.topic_command}"
    subscription_id = args.subscription.rsplit(":", 1)[-1]
    path = f"/v1/subscriptions/{quote(subscription_id, safe='')}"
    try:
        found, status = rest_requests.ask(args, "GET", path)
        if status == 200 and found.get("topic") != args.topic:
            print(
                f"{command}: subscription {subscription_id} is one of topic "
                f"{found.get('topic')}, not of {args.topic}",
                file=sys.stderr,
            )
            return 1
        if status == 200:
            body = {"offset": args.offset} if args.offset is not None else {"timestamp": args.time}
            found, status = rest_requests.ask(args, "POST", path + "/seek", body)
    except (CannotAsk, SettingsError) as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return 2
    if status != 200:
        print(f"{command}: {rest_requests.error_text(found)}", file=sys.stderr)
        return 1
    _print_sought(args, subscription_id, found)
    return 0


def _print_sought(args: argparse.Namespace, subscription_id: str, sought: Any) -> None:
    print(
        f"Subscription {subscription_id} of topic {args.topic} now delivers from offset "
        f"{sought['offset']} (the log ends at {sought['end_offset']})."
    )


def _offset(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an offset") from None
    if value < 0:
        raise argparse.ArgumentTypeError("an offset is 0 or more")
    return value


def _time_ms(text: str) -> int:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an ISO 8601 time (e.g. 2026-05-01T12:00:00Z)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - _EPOCH) // timedelta(milliseconds=1)
