"""`tidemq tail`: print a queue's, a topic's or a pull subscription's messages as they
arrive, like `tail -f`, until Ctrl-C.

- A queue is consumed: each message printed is deleted, as `receive --delete` does (a
  queue has no way to watch without taking).
- A topic is followed through a pull subscription of its own, `tidemq-tail-<random>`,
  made at the start (so it prints what is published from then on, and takes nothing
  from the topic's other subscribers) and removed at the end.
- An existing pull subscription (`--subscription ID`) is consumed as a queue is.

How: with a bearer token (--token, TIDEMQ_TOKEN), messages are pushed over the WebSocket
API with credit (a topic's and a subscription's through the pull subscription's
`subscribe`); otherwise, or with --poll, by long polls of the REST API (20 s each,
answered at once when a message arrives). Ctrl-C ends it with
exit code 0; a message received and not yet printed becomes visible again when its
visibility timeout ends.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
from collections.abc import Callable
from typing import Protocol

from tidemq.cli import client_command
from tidemq.cli.client_command import EXIT_OK, EXIT_USAGE, add_command, print_json
from tidemq.cli.connection import Target
from tidemq_client import unwrap, websocket
from tidemq_client.rest.api.messages import delete_messages, receive_messages
from tidemq_client.rest.api.subscriptions import (
    delete_from_subscription,
    receive_from_subscription,
    unsubscribe,
)
from tidemq_client.rest.api.topics import subscribe
from tidemq_client.rest.client import Client
from tidemq_client.rest.models import CreateSubscription, DeleteMessages, Receive
from tidemq_client.rest.models import ReceivedMessage as RestMessage

LONG_POLL_S = 20
BATCH = 10
CREDIT = 10


class Message(Protocol):
    """A received message of the REST API or of the WebSocket API."""

    body: str

    def to_dict(self) -> dict[str, object]: ...


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tail = add_command(
        commands,
        "tail",
        help_text="follow a queue, a topic or a pull subscription live, like tail -f",
        description="Print messages as they arrive until Ctrl-C. A queue's messages are "
        "deleted once printed (the queue is consumed); a topic is followed through a pull "
        "subscription made for the purpose and removed at the end; --subscription consumes "
        "an existing pull subscription. Pushed over the WebSocket API when a token is given, "
        "else by long polls.",
        example_lines=(
            "tidemq tail orders",
            "tidemq tail --topic prices --json",
            "tidemq tail --subscription 3f1c0a2e --poll",
        ),
    )
    tail.add_argument("name", metavar="QUEUE_OR_TOPIC", nargs="?", help="a queue (or --topic)")
    what = tail.add_mutually_exclusive_group()
    what.add_argument("--topic", action="store_true", help="the name is a topic's")
    what.add_argument("--subscription", metavar="ID", help="an existing pull subscription")
    tail.add_argument("--poll", action="store_true", help="long polls even with a token")


def run(args: argparse.Namespace) -> int:
    if (args.name is None) == (args.subscription is None):
        return client_command.fail(
            "tail", "give a QUEUE, --topic TOPIC or --subscription ID", EXIT_USAGE
        )
    return client_command.run(args, "tail", lambda tidemq, target: _tail(tidemq, target, args))


def _tail(tidemq: Client, target: Target, args: argparse.Namespace) -> int:
    emit = _printer(args.json)
    push = bool(target.credentials.token) and not args.poll
    try:
        if args.subscription is not None:
            _follow_subscription(tidemq, target, args.subscription, emit, push)
        elif args.topic:
            _follow_topic(tidemq, target, args.name, emit, push)
        elif push:
            asyncio.run(_push(target, emit, queue=args.name))
        else:
            _poll_queue(tidemq, args.name, emit)
    except KeyboardInterrupt:
        pass
    return EXIT_OK


def _printer(as_json: bool) -> Callable[[Message], None]:
    def emit(message: Message) -> None:
        if as_json:
            print_json(message.to_dict())
        else:
            print(message.body, flush=True)

    return emit


def _poll_queue(tidemq: Client, queue: str, emit: Callable[[Message], None]) -> None:
    body = Receive(max_messages=BATCH, wait_seconds=LONG_POLL_S)
    while True:
        got = unwrap(receive_messages.sync(queue, client=tidemq, body=body)).messages
        _emit_all(got, emit)
        if got:
            handles = DeleteMessages(receipt_handles=[m.receipt_handle for m in got])
            delete_messages.sync(queue, client=tidemq, body=handles)


def _poll_subscription(
    tidemq: Client, subscription_id: str, emit: Callable[[Message], None]
) -> None:
    body = Receive(max_messages=BATCH, wait_seconds=LONG_POLL_S)
    while True:
        got = unwrap(
            receive_from_subscription.sync(subscription_id, client=tidemq, body=body)
        ).messages
        _emit_all(got, emit)
        if got:
            handles = DeleteMessages(receipt_handles=[m.receipt_handle for m in got])
            delete_from_subscription.sync(subscription_id, client=tidemq, body=handles)


def _emit_all(messages: list[RestMessage], emit: Callable[[Message], None]) -> None:
    for message in messages:
        emit(message)


def _follow_subscription(
    tidemq: Client,
    target: Target,
    subscription_id: str,
    emit: Callable[[Message], None],
    push: bool,
) -> None:
    if push:
        asyncio.run(_push(target, emit, subscription=subscription_id))
    else:
        _poll_subscription(tidemq, subscription_id, emit)


def _follow_topic(
    tidemq: Client, target: Target, topic: str, emit: Callable[[Message], None], push: bool
) -> None:
    """Through a pull subscription of its own, removed however the tail ends."""
    name = f"tidemq-tail-{secrets.token_hex(4)}"
    made = unwrap(
        subscribe.sync(
            topic, client=tidemq, body=CreateSubscription(protocol="pull", endpoint=name)
        )
    )
    try:
        _follow_subscription(tidemq, target, made.id, emit, push)
    finally:
        unsubscribe.sync(made.id, client=tidemq)


async def _push(
    target: Target,
    emit: Callable[[Message], None],
    *,
    queue: str | None = None,
    subscription: str | None = None,
) -> None:
    """A queue's or a pull subscription's messages pushed over the WebSocket API."""
    async with websocket.connect(target.endpoint, target.credentials.token) as connection:
        pushed = await connection.subscribe(queue, credit=CREDIT, subscription=subscription)
        async for delivery in pushed:
            emit(delivery.message)
            await delivery.ack()
