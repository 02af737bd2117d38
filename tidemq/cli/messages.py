"""`tidemq send` and `tidemq receive`: messages of a running TideMQ's queues (and, for
`send --topic`, publishes to a topic), through the Python SDK's REST client.

`send QUEUE BODY` sends one message. With no BODY, or with `--file PATH` (`-` for
stdin), it sends each line as one message (the line ending is not part of the body;
empty lines are skipped), in batches: up to 100 messages and 256 KiB to a queue, 10 to a
topic (the APIs' limits). A message a batch refused is reported on stderr with its line
number and the rest go on; the exit code is then 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from tidemq.cli import client_command
from tidemq.cli.client_command import EXIT_OK, EXIT_REFUSED, UsageError, add_command, print_json
from tidemq.cli.progress import Progress
from tidemq_client import unwrap
from tidemq_client.rest.api.messages import (
    delete_messages,
    receive_messages,
    send_message,
    send_message_batch,
)
from tidemq_client.rest.api.topics import publish, publish_batch
from tidemq_client.rest.client import Client
from tidemq_client.rest.models import (
    DeleteMessages,
    PublishedMessage,
    Receive,
    ReceivedMessage,
    SendBatch,
    SendMessage,
    SendMessageAttributesType0,
    SentMessage,
)
from tidemq_client.rest.types import UNSET

MAX_QUEUE_BATCH = 100
MAX_TOPIC_BATCH = 10
# Under every deployment's batch limit (the message size limit, 256 KiB at the least).
MAX_BATCH_BYTES = 256 * 1024
MAX_RECEIVE = 100


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    send = add_command(
        commands,
        "send",
        help_text="send a message, or one per line of a file or stdin",
        description="Send BODY as one message to QUEUE; with no BODY, each line of stdin "
        "(or of --file) is a message, sent in batches with a progress bar on stderr when it "
        "is a terminal. Prints each message's id (--json: one result per line).",
        example_lines=(
            "tidemq send orders 'order 1'",
            "seq 1000 | tidemq send orders",
            "tidemq send orders --file orders.txt --progress",
            "tidemq send payments.fifo 'paid' --group-id customer-7 --dedup-id pay-1",
            "tidemq send --topic prices 'ACME 10.5' --attr symbol=ACME",
        ),
    )
    send.add_argument("queue", metavar="QUEUE", help="the queue (with --topic: the topic)")
    send.add_argument("body", nargs="?", metavar="BODY", help="the message; omit to read lines")
    send.add_argument("--topic", action="store_true", help="QUEUE names a topic: publish to it")
    send.add_argument("--file", metavar="PATH", help="send each line of PATH (- for stdin)")
    send.add_argument("--group-id", help="FIFO: the message group")
    send.add_argument("--dedup-id", help="FIFO: the deduplication id (one message only)")
    send.add_argument("--delay", type=int, metavar="SECONDS", help="deliver after a delay")
    send.add_argument(
        "--attr", action="append", metavar="NAME=VALUE", help="a String message attribute"
    )
    bar = send.add_mutually_exclusive_group()
    bar.add_argument("--progress", action="store_true", default=None, help="always draw the bar")
    bar.add_argument("--no-progress", dest="progress", action="store_false", help="never draw it")

    receive = add_command(
        commands,
        "receive",
        help_text="receive messages (and delete them with --delete)",
        description="Receive up to --max messages and print their bodies, one per line "
        "(--json: the messages, receipt handles included). Without --delete they stay in "
        "the queue, invisible until their visibility timeout ends.",
        example_lines=(
            "tidemq receive orders",
            "tidemq receive orders --max 50 --wait 5 --delete",
            "tidemq receive orders --json | jq -r '.messages[].receipt_handle'",
        ),
    )
    receive.add_argument("queue", metavar="QUEUE")
    receive.add_argument("--max", type=_positive, default=1, help="at most this many (1)")
    receive.add_argument(
        "--wait", type=int, metavar="SECONDS", help="long-poll up to 20 s (default: the queue's)"
    )
    receive.add_argument(
        "--visibility", type=int, metavar="SECONDS", help="visibility timeout (the queue's)"
    )
    receive.add_argument("--delete", action="store_true", help="delete what was received")


def run_send(args: argparse.Namespace) -> int:
    return client_command.run(args, "send", lambda tidemq, _: _send(tidemq, args))


def run_receive(args: argparse.Namespace) -> int:
    return client_command.run(args, "receive", lambda tidemq, _: _receive(tidemq, args))


def _send(tidemq: Client, args: argparse.Namespace) -> int:
    attributes = client_command.key_values(args.attr, "--attr")
    if args.body is not None and args.file is None:
        one = _message(args.body, args, attributes)
        one.dedup_id = args.dedup_id or UNSET
        sent: PublishedMessage | SentMessage = (
            unwrap(publish.sync(args.queue, client=tidemq, body=one))
            if args.topic
            else unwrap(send_message.sync(args.queue, client=tidemq, body=one))
        )
        print_json(sent) if args.json else print(sent.message_id)
        return EXIT_OK
    if args.body is not None:
        raise UsageError("give BODY or --file, not both")
    if args.dedup_id:
        raise UsageError("--dedup-id names one message: give BODY")
    if args.file in (None, "-"):
        return _send_lines(tidemq, args, sys.stdin, None, attributes)
    try:
        with Path(args.file).open(encoding="utf-8") as counted:
            total = sum(1 for line in counted if line.rstrip("\r\n"))
        with Path(args.file).open(encoding="utf-8") as lines:
            return _send_lines(tidemq, args, lines, total, attributes)
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {args.file}: {exc}") from exc


def _message(body: str, args: argparse.Namespace, attributes: dict[str, str]) -> SendMessage:
    """A message of `body` with what every message of the command shares."""
    return SendMessage(
        body=body,
        group_id=args.group_id or UNSET,
        delay_seconds=UNSET if args.delay is None else args.delay,
        attributes=SendMessageAttributesType0.from_dict(
            {name: {"data_type": "String", "string_value": v} for name, v in attributes.items()}
        )
        if attributes
        else UNSET,
    )


def _send_lines(
    tidemq: Client,
    args: argparse.Namespace,
    lines: IO[str],
    total: int | None,
    attributes: dict[str, str],
) -> int:
    progress = Progress(f"sending to {args.queue}", total, enabled=args.progress)
    max_entries = MAX_TOPIC_BATCH if args.topic else MAX_QUEUE_BATCH
    sent = refused = 0
    for batch in _batches(_numbered(lines), max_entries):
        body = SendBatch(messages=[_message(text, args, attributes) for _, text in batch])
        operation = publish_batch if args.topic else send_message_batch
        results = unwrap(operation.sync(args.queue, client=tidemq, body=body)).results
        for result in results:
            line_number = batch[result.index][0]
            if args.json:
                print_json({"line": line_number, **result.to_dict()})
            if result.error:
                refused += 1
                error = result.error
                print(
                    f"tidemq send: line {line_number}: {error.code}: {error.message}",
                    file=sys.stderr,
                )
            else:
                sent += 1
        progress.update(sent + refused)
    progress.finish()
    if not args.json:
        print(
            f"Sent {sent} messages to {args.queue}" + (f"; {refused} refused." if refused else ".")
        )
    return EXIT_REFUSED if refused else EXIT_OK


def _numbered(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(lines, start=1):
        text = line.rstrip("\r\n")
        if text:
            yield number, text


def _batches(
    numbered: Iterator[tuple[int, str]], max_entries: int
) -> Iterator[list[tuple[int, str]]]:
    batch: list[tuple[int, str]] = []
    size = 0
    for number, text in numbered:
        length = len(text.encode())
        if batch and (len(batch) == max_entries or size + length > MAX_BATCH_BYTES):
            yield batch
            batch, size = [], 0
        batch.append((number, text))
        size += length
    if batch:
        yield batch


def _receive(tidemq: Client, args: argparse.Namespace) -> int:
    received: list[ReceivedMessage] = []
    while len(received) < args.max:
        wanted = min(args.max - len(received), MAX_RECEIVE)
        body = Receive(
            max_messages=wanted,
            wait_seconds=UNSET if args.wait is None else args.wait,
            visibility_timeout=UNSET if args.visibility is None else args.visibility,
        )
        got = unwrap(receive_messages.sync(args.queue, client=tidemq, body=body)).messages
        received.extend(got)
        if not got:
            break
    failed = 0
    if args.delete:
        for start in range(0, len(received), MAX_RECEIVE):
            handles = [m.receipt_handle for m in received[start : start + MAX_RECEIVE]]
            results = unwrap(
                delete_messages.sync(
                    args.queue, client=tidemq, body=DeleteMessages(receipt_handles=handles)
                )
            ).results
            for result in results:
                if result.error:
                    failed += 1
                    error = result.error
                    client_command.fail(
                        "receive", f"delete: {error.code}: {error.message}", EXIT_REFUSED
                    )
    if args.json:
        print_json({"messages": [message.to_dict() for message in received]})
    else:
        for message in received:
            print(message.body)
    return EXIT_REFUSED if failed else EXIT_OK


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("give 1 or more")
    return value
