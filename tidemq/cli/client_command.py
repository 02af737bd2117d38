"""How an everyday command (`tidemq queue`, `send`, `receive`, `tail`, `redrive`, `stats`)
runs: on the Python SDK's client, with exit codes that say what happened.

    0  done
    1  TideMQ refused: its error code and message on stderr (no such queue, bad input,
       bad credentials), or some messages of a batch were refused
    2  usage: bad arguments, no credentials, an unreadable input file
    3  cannot connect: nothing answers at the endpoint, or the connection broke

`--json` prints the API's answer as JSON on stdout (streams: one object per line);
without it, text for people. Errors are always text on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any, Protocol

import httpx

from tidemq.cli import connection
from tidemq_client import client
from tidemq_client.errors import ApiError, CannotConnect, ConnectionClosed, TidemqError
from tidemq_client.rest.client import Client

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3


class UsageError(Exception):
    """The command was asked for something it cannot do: exit 2."""


class ApiModel(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


Body = Callable[[Client, connection.Target], int]


def run(args: argparse.Namespace, command: str, body: Body) -> int:
    """Runs `body` with a client of the endpoint `args` names, and turns what it raises
    into an exit code and a line on stderr."""
    try:
        target = connection.resolve(args)
        with client(target.endpoint, target.credentials) as tidemq:
            return body(tidemq, target)
    except (connection.NoCredentials, UsageError) as exc:
        return fail(command, str(exc), EXIT_USAGE)
    except ApiError as exc:
        return fail(command, f"{exc.code}: {exc.message}", EXIT_REFUSED)
    except (httpx.TransportError, CannotConnect, ConnectionClosed, OSError) as exc:
        where = getattr(args, "endpoint", None) or "the endpoint"
        return fail(command, f"cannot connect to TideMQ at {where}: {exc}", EXIT_UNREACHABLE)
    except TidemqError as exc:
        # An answer the SDK cannot read (resolve() has already found credentials).
        return fail(command, str(exc), EXIT_REFUSED)


def fail(command: str, message: str, code: int) -> int:
    print(f"tidemq {command}: {message}", file=sys.stderr)
    return code


def print_json(value: ApiModel | dict[str, Any] | list[Any]) -> None:
    """One JSON document on one line of stdout, flushed (a reader may be streaming)."""
    plain = value if isinstance(value, dict | list) else value.to_dict()
    print(json.dumps(plain, ensure_ascii=False), flush=True)


def key_values(pairs: list[str] | None, option: str) -> dict[str, str]:
    """`NAME=VALUE` arguments as a dict."""
    found: dict[str, str] = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"{option} {pair!r}: give NAME=VALUE")
        found[name] = value
    return found


def examples(*lines: str) -> str:
    """An epilog of examples for --help."""
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


def add_command(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    *,
    help_text: str,
    description: str,
    example_lines: tuple[str, ...],
) -> argparse.ArgumentParser:
    """A subcommand with the everyday options and its examples in --help."""
    parser = commands.add_parser(
        name,
        help=help_text,
        description=description,
        epilog=examples(*example_lines) + "\n\n" + EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    connection.add_arguments(parser)
    return parser


EXIT_CODES_HELP = (
    "exit codes: 0 done, 1 TideMQ refused (its code and message on stderr), "
    "2 usage, 3 cannot connect"
)
