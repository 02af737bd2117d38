"""`tidemq redrive DLQ`: move a dead-letter queue's messages back to the queues they came
from (or to `--to QUEUE`), as SQS's StartMessageMoveTask does, and follow the task until
it ends with a progress bar on stderr (when it is a terminal).

Exit codes as every everyday command's (tidemq/cli/client_command.py); a task that ends
FAILED is 1, with its failure reason. `--no-wait` prints the task's handle and returns
at once; Ctrl-C stops following it, and the task carries on in TideMQ (cancel it with
the REST API's `POST /v1/move-tasks/HANDLE/cancel`, or SQS's CancelMessageMoveTask).
"""

from __future__ import annotations

import argparse
import time

from tidemq.cli import client_command
from tidemq.cli.client_command import EXIT_OK, EXIT_REFUSED, add_command, print_json
from tidemq.cli.progress import Progress
from tidemq_client import unwrap
from tidemq_client.rest.api.move_tasks import list_move_tasks, start_move_task
from tidemq_client.rest.client import Client
from tidemq_client.rest.models import MoveTask, StartMoveTask
from tidemq_client.rest.types import UNSET

POLL_S = 0.5


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    redrive = add_command(
        commands,
        "redrive",
        help_text="move a dead-letter queue's messages back, and show progress",
        description="Start a message move task on a dead-letter queue: each message goes "
        "back to the queue it came from, or to --to QUEUE; then follow the task until it "
        "ends.",
        example_lines=(
            "tidemq redrive orders-dlq",
            "tidemq redrive orders-dlq --to orders-retry --rate 50",
            "tidemq redrive orders-dlq --no-wait --json",
        ),
    )
    redrive.add_argument("queue", metavar="DLQ", help="the dead-letter queue")
    redrive.add_argument("--to", metavar="QUEUE", help="where to (default: each one's source)")
    redrive.add_argument("--rate", type=int, metavar="N", help="at most N messages a second")
    redrive.add_argument("--no-wait", action="store_true", help="start it and return")


def run(args: argparse.Namespace) -> int:
    return client_command.run(args, "redrive", lambda tidemq, _: _redrive(tidemq, args))


def _redrive(tidemq: Client, args: argparse.Namespace) -> int:
    body = StartMoveTask(
        destination=args.to if args.to else UNSET,
        max_per_second=args.rate if args.rate is not None else UNSET,
    )
    handle = unwrap(start_move_task.sync(args.queue, client=tidemq, body=body)).task_handle
    if args.no_wait:
        print_json({"task_handle": handle}) if args.json else print(handle)
        return EXIT_OK
    task = _follow(tidemq, args.queue)
    if args.json:
        print_json(task)
    else:
        where = task.destination if isinstance(task.destination, str) else "their source queues"
        print(f"{task.status}: moved {task.moved} of {task.to_move} messages to {where}.")
    if task.status == "FAILED":
        reason = task.failure_reason if isinstance(task.failure_reason, str) else "no reason"
        return client_command.fail("redrive", f"the task failed: {reason}", EXIT_REFUSED)
    return EXIT_OK


def _follow(tidemq: Client, queue: str) -> MoveTask:
    """The task once it has ended: the newest of the queue's, since TideMQ runs one at a
    time per queue and keeps no handle on a task that has ended."""
    progress: Progress | None = None
    try:
        while True:
            task = unwrap(list_move_tasks.sync(queue, client=tidemq, limit=1)).tasks[0]
            if progress is None:
                progress = Progress(f"redriving {queue}", task.to_move)
            progress.update(task.moved)
            if task.status not in ("RUNNING", "CANCELLING"):
                return task
            time.sleep(POLL_S)
    finally:
        if progress is not None:
            progress.finish()
