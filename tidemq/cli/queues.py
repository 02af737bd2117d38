"""`tidemq queue create|list|delete|attrs|purge` and `tidemq stats`: a running TideMQ's
queues, through the Python SDK's REST client (tidemq/cli/client_command.py: options,
output and exit codes)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from tidemq.cli import client_command
from tidemq.cli.client_command import add_command, print_json
from tidemq.cli.connection import Target
from tidemq_client import unwrap
from tidemq_client.rest.api.queues import (
    create_queue,
    delete_queue,
    get_queue,
    get_queue_stats,
    list_queues,
    purge_queue,
    set_queue_attributes,
)
from tidemq_client.rest.client import Client
from tidemq_client.rest.models import (
    CreateQueue,
    CreateQueueAttributesType0,
    QueueRef,
    QueueStats,
    SetQueueAttributes,
    SetQueueAttributesAttributes,
)
from tidemq_client.rest.types import UNSET

_PAGE = 1000


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    queue = commands.add_parser(
        "queue",
        help="create, list, inspect, purge and delete queues",
        description="Manage a running TideMQ's queues; see docs/cli.md.",
    )
    actions = queue.add_subparsers(dest="queue_command", metavar="ACTION", required=True)
    create = add_command(
        actions,
        "create",
        help_text="create a queue (a name ending in .fifo makes a FIFO queue)",
        description="Create a queue, with SQS's attribute names; creating one that exists "
        "with the same attributes is not an error.",
        example_lines=(
            "tidemq queue create orders --attr VisibilityTimeout=60",
            "tidemq queue create payments.fifo --attr ContentBasedDeduplication=true",
        ),
    )
    create.add_argument("name")
    create.add_argument("--attr", action="append", metavar="NAME=VALUE", help="an attribute")
    listing = add_command(
        actions,
        "list",
        help_text="list queues",
        description="List the queues of the account, every page of them.",
        example_lines=("tidemq queue list --prefix ord",),
    )
    listing.add_argument("--prefix", default="", help="only queues whose name starts so")
    delete = add_command(
        actions,
        "delete",
        help_text="delete a queue and its messages",
        description="Delete a queue: its messages are gone.",
        example_lines=("tidemq queue delete orders",),
    )
    delete.add_argument("name")
    attrs = add_command(
        actions,
        "attrs",
        help_text="show a queue's attributes, or change them with --set",
        description="Show a queue's attributes (SQS's names, defaults included), or set "
        "some with --set; it prints them as they are afterwards.",
        example_lines=(
            "tidemq queue attrs orders",
            "tidemq queue attrs orders --set VisibilityTimeout=120 --set DelaySeconds=5",
        ),
    )
    attrs.add_argument("name")
    attrs.add_argument("--set", action="append", metavar="NAME=VALUE", help="an attribute")
    purge = add_command(
        actions,
        "purge",
        help_text="delete every message of a queue",
        description="Purge a queue: every message in it, visible or not, is deleted. "
        "TideMQ takes one purge per queue a minute, as SQS does.",
        example_lines=("tidemq queue purge orders",),
    )
    purge.add_argument("name")
    stats = add_command(
        commands,
        "stats",
        help_text="messages visible, in flight and delayed, per queue",
        description="Show the approximate counts of queues: the ones named, or all.",
        example_lines=("tidemq stats", "tidemq stats orders --json"),
    )
    stats.add_argument("names", nargs="*", metavar="QUEUE")


def run(args: argparse.Namespace) -> int:
    actions = {
        "create": _create,
        "list": _list,
        "delete": _delete,
        "attrs": _attrs,
        "purge": _purge,
    }
    action = actions[args.queue_command]
    return client_command.run(
        args, f"queue {args.queue_command}", lambda tidemq, _: action(tidemq, args)
    )


def run_stats(args: argparse.Namespace) -> int:
    return client_command.run(args, "stats", lambda tidemq, target: _stats(tidemq, target, args))


def _create(tidemq: Client, args: argparse.Namespace) -> int:
    attributes = client_command.key_values(args.attr, "--attr")
    body = CreateQueue(
        name=args.name,
        attributes=CreateQueueAttributesType0.from_dict(attributes) if attributes else UNSET,
    )
    queue = unwrap(create_queue.sync(client=tidemq, body=body))
    if args.json:
        print_json(queue)
    else:
        print(queue.url)
    return 0


def _list(tidemq: Client, args: argparse.Namespace) -> int:
    queues = list(all_queues(tidemq, args.prefix))
    if args.json:
        print_json({"queues": [queue.to_dict() for queue in queues]})
    for queue in [] if args.json else queues:
        print(queue.url)
    return 0


def all_queues(tidemq: Client, prefix: str = "") -> Iterator[QueueRef]:
    after: str | None = None
    while True:
        page = unwrap(
            list_queues.sync(
                client=tidemq, prefix=prefix, limit=_PAGE, after=UNSET if after is None else after
            )
        )
        yield from page.queues
        if not isinstance(page.next_after, str):
            return
        after = page.next_after


def _delete(tidemq: Client, args: argparse.Namespace) -> int:
    delete_queue.sync(args.name, client=tidemq)
    if args.json:
        print_json({"deleted": args.name})
    else:
        print(f"Deleted queue {args.name}.")
    return 0


def _attrs(tidemq: Client, args: argparse.Namespace) -> int:
    changes = client_command.key_values(args.set, "--set")
    if changes:
        body = SetQueueAttributes(attributes=SetQueueAttributesAttributes.from_dict(changes))
        unwrap(set_queue_attributes.sync(args.name, client=tidemq, body=body))
    queue = unwrap(get_queue.sync(args.name, client=tidemq))
    attributes = queue.attributes.to_dict()
    if args.json:
        print_json(attributes)
    else:
        width = max(map(len, attributes), default=0)
        for name, value in sorted(attributes.items()):
            print(f"{name:<{width}}  {value}")
    return 0


def _purge(tidemq: Client, args: argparse.Namespace) -> int:
    purge_queue.sync(args.name, client=tidemq)
    if args.json:
        print_json({"purged": args.name})
    else:
        print(f"Purged queue {args.name}.")
    return 0


def _stats(tidemq: Client, target: Target, args: argparse.Namespace) -> int:
    names = args.names or [queue.name for queue in all_queues(tidemq)]
    counts: dict[str, QueueStats] = {
        name: unwrap(get_queue_stats.sync(name, client=tidemq)) for name in names
    }
    if args.json:
        print_json({name: stats.to_dict() for name, stats in counts.items()})
        return 0
    width = max([len("QUEUE"), *map(len, counts)])
    print(f"{'QUEUE':<{width}}  {'VISIBLE':>9}  {'IN FLIGHT':>9}  {'DELAYED':>9}")
    for name, stats in counts.items():
        print(f"{name:<{width}}  {stats.visible:>9}  {stats.in_flight:>9}  {stats.delayed:>9}")
    if not counts:
        print(f"(no queues at {target.endpoint})")
    return 0
