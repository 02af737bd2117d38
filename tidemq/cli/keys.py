"""`tidemq keys create|list|revoke`: the access keys requests are signed with; and
`tidemq keys token|tokens|revoke-token`, the REST API's bearer tokens (tidemq/cli/tokens.py).

Which Redis: `--redis-url` (TIDEMQ_REDIS_URL) when given; otherwise the embedded Redis of
the running `tidemq up` whose data directory is `--data-dir` (TIDEMQ_DATA_DIR, default
./.tidemq), found from `<data dir>/redis/redis.conf` and checked to be that directory's
server (`CONFIG GET dir`), so a port reused by another server is never written to.
Secrets are sealed under the master key: TIDEMQ_MASTER_KEY, else `<data dir>/master.key`,
which must be the gateway's own for the keys to work.

Exit codes: 0 done, 1 refused (malformed or taken id, no such key), 2 cannot start
(settings, no running `tidemq up`, no master key, Redis unreachable).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from control_plane.access_keys import DEFAULT_ACCOUNT_ID, AccessKeys
from control_plane.clock import SystemClock
from control_plane.errors import ControlPlaneError, ControlPlaneUnavailable, redis_boundary
from control_plane.redis_client import RedisClient, open_redis
from control_plane.redis_values import as_text
from control_plane.secret_box import SecretBox
from tidemq.cli import tokens as token_cli
from tidemq.master_key import MASTER_KEY_FILE, load_master_key
from tidemq.settings import Settings, SettingsError

_WEAK_SECRET_CHARS = 20
_FROM_STDIN = "-"


class KeysCliError(Exception):
    """`tidemq keys` cannot start; the message tells the user what to do."""


def control_plane_arguments() -> argparse.ArgumentParser:
    """The options saying which control plane a command uses (`control_redis` reads
    them), as a parent parser for the commands that talk to it."""
    where = argparse.ArgumentParser(add_help=False)
    where.add_argument(
        "--data-dir",
        type=Path,
        help="data directory of the running `tidemq up` (TIDEMQ_DATA_DIR; default ./.tidemq)",
    )
    where.add_argument(
        "--redis-url", help="the control plane's Redis, instead of tidemq up's (TIDEMQ_REDIS_URL)"
    )
    where.add_argument("--config", type=Path, help="a TOML settings file (TIDEMQ_CONFIG)")
    return where


def add_parser(commands: Any) -> None:
    """Adds `keys` and its subcommands to the `tidemq` command's subparsers."""
    where = control_plane_arguments()

    keys = commands.add_parser(
        "keys",
        help="create, list and revoke access keys",
        description="Access keys sign requests (AWS Signature V4). Each belongs to one "
        "account and sees only that account's queues. They are kept in the control plane: "
        "run these while `tidemq up` runs, or pass --redis-url.",
    )
    actions = keys.add_subparsers(dest="keys_command", metavar="ACTION", required=True)
    create = actions.add_parser(
        "create",
        parents=[where],
        help="make a key and print its secret (once)",
        description="Make an access key. Without --id and --secret both are generated; "
        "give them to import an existing client configuration.",
    )
    create.add_argument("--id", dest="key_id", help="the access key id (default: generated)")
    create.add_argument(
        "--secret",
        help="the secret access key (default: generated); '-' reads it from standard input, "
        "which keeps it out of the shell history and the process list",
    )
    create.add_argument(
        "--account", default=DEFAULT_ACCOUNT_ID, help=f"12-digit account id ({DEFAULT_ACCOUNT_ID})"
    )
    listing = actions.add_parser(
        "list", parents=[where], help="show keys (never their secrets)", description="List keys."
    )
    listing.add_argument("--account", help="only this account's keys")
    revoke = actions.add_parser(
        "revoke",
        parents=[where],
        help="remove a key; requests signed with it are refused at once",
        description="Revoke an access key.",
    )
    revoke.add_argument("key_id", metavar="ACCESS_KEY_ID")
    token_cli.add_parsers(actions, where)


def run(args: argparse.Namespace) -> int:
    commands: dict[str, Callable[[AccessKeys, argparse.Namespace], Awaitable[int]]] = {
        "create": _create,
        "list": _list,
        "revoke": _revoke,
    }
    try:
        settings = Settings.load(
            flags={"data_dir": args.data_dir, "redis_url": args.redis_url},
            config_file=args.config,
        )
        if args.keys_command in token_cli.COMMANDS:
            return asyncio.run(token_cli.run(settings, args, control_redis))
        return asyncio.run(_with_keys(settings, commands[args.keys_command], args))
    except (SettingsError, KeysCliError) as exc:
        print(f"tidemq keys: {exc}", file=sys.stderr)
        return 2
    except ControlPlaneUnavailable as exc:
        print(f"tidemq keys: {exc}", file=sys.stderr)
        return 2
    except ControlPlaneError as exc:
        print(f"tidemq keys {args.keys_command}: {exc}", file=sys.stderr)
        return 1


async def _with_keys(
    settings: Settings,
    command: Callable[[AccessKeys, argparse.Namespace], Awaitable[int]],
    args: argparse.Namespace,
) -> int:
    data_dir = settings.data_dir.resolve()
    master_key = load_master_key(settings.master_key, data_dir)
    if master_key is None:
        raise KeysCliError(
            f"no master key: {data_dir / MASTER_KEY_FILE} does not exist and "
            "TIDEMQ_MASTER_KEY is not set. Start `tidemq up` first (it makes the key), "
            "pass the --data-dir it uses, or set TIDEMQ_MASTER_KEY to the gateway's key."
        )
    async with control_redis(settings) as redis:
        return await command(AccessKeys(redis, SystemClock(), SecretBox(master_key)), args)


@asynccontextmanager
async def control_redis(settings: Settings) -> AsyncIterator[RedisClient]:
    """The control plane's Redis: `--redis-url`, or the running `tidemq up`'s, checked."""
    data_dir = settings.data_dir.resolve()
    redis = open_redis(settings.redis_url or embedded_redis_url(data_dir))
    try:
        if settings.redis_url is None:
            await _check_embedded(redis, data_dir)
        yield redis
    finally:
        await redis.aclose()


def embedded_redis_url(data_dir: Path) -> str:
    """The URL of the Redis that `tidemq up` started for this data directory."""
    config = data_dir / "redis" / "redis.conf"
    try:
        lines = config.read_text().splitlines()
    except FileNotFoundError:
        raise KeysCliError(_not_running(data_dir, f"{config} does not exist")) from None
    except OSError as exc:
        raise KeysCliError(f"cannot read {config}: {exc.strerror}") from exc
    settings = dict(line.split(" ", 1) for line in lines if " " in line)
    if "port" not in settings:
        raise KeysCliError(f"{config} names no port; start `tidemq up` again to rewrite it")
    return f"redis://{settings.get('bind', '127.0.0.1')}:{settings['port']}/0"


async def _check_embedded(redis: RedisClient, data_dir: Path) -> None:
    try:
        with redis_boundary():
            reply = await redis.config_get("dir")
    except ControlPlaneUnavailable as exc:
        raise KeysCliError(_not_running(data_dir, "its Redis does not answer")) from exc
    served = ""
    for name, value in reply.items():
        if name is not None and value is not None and as_text(name) == "dir":
            served = as_text(value)
    if Path(served) != data_dir / "redis":
        raise KeysCliError(_not_running(data_dir, "its Redis port is now another server's"))


def _not_running(data_dir: Path, why: str) -> str:
    return (
        f"no running `tidemq up` for the data directory {data_dir} ({why}). "
        f"Start it first: tidemq up --data-dir {data_dir}  (or pass --redis-url to use "
        "another control plane)"
    )


async def _create(keys: AccessKeys, args: argparse.Namespace) -> int:
    given = sys.stdin.readline().strip() if args.secret == _FROM_STDIN else args.secret
    issued = await keys.create(args.account, args.key_id, given)
    secret = issued.secret_access_key
    print(f"Created access key {issued.key.access_key_id} for account {issued.key.account_id}.")
    print(f"  access key id      {issued.key.access_key_id}")
    print(f"  secret access key  {secret}")
    print(f"  account id         {issued.key.account_id}")
    print("The secret is shown only now; TideMQ keeps it encrypted and cannot show it again.")
    if len(secret) < _WEAK_SECRET_CHARS:
        print(
            f"warning: a secret of {len(secret)} characters is easy to guess; generated ones "
            "have 40",
            file=sys.stderr,
        )
    return 0


async def _list(keys: AccessKeys, args: argparse.Namespace) -> int:
    listed = await keys.list_keys(args.account)
    if not listed:
        print("No access keys." if args.account is None else f"No keys for {args.account}.")
        return 0
    admin = await keys.admin_key_id()
    width = max(len("ACCESS KEY ID"), *(len(k.access_key_id) for k in listed))
    print(f"{'ACCESS KEY ID':<{width}}  ACCOUNT       CREATED (UTC)        SECRET SHA-256")
    for key in listed:
        created = datetime.fromtimestamp(key.created_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S")
        note = "  (tidemq up's admin key)" if key.access_key_id == admin else ""
        print(
            f"{key.access_key_id:<{width}}  {key.account_id}  {created}  "
            f"{key.fingerprint[:16]}{note}"
        )
    return 0


async def _revoke(keys: AccessKeys, args: argparse.Namespace) -> int:
    admin = await keys.admin_key_id()
    revoked = await keys.revoke(args.key_id)
    if revoked is None:
        print(f"tidemq keys revoke: there is no access key {args.key_id}", file=sys.stderr)
        return 1
    print(
        f"Revoked access key {revoked.access_key_id} of account {revoked.account_id}; "
        "requests signed with it are refused from now on."
    )
    if revoked.access_key_id == admin:
        print(
            "It was tidemq up's admin key: tidemq up registers it again when it starts, "
            "unless TIDEMQ_ACCESS_KEY_ID and TIDEMQ_SECRET_ACCESS_KEY name another."
        )
    return 0
