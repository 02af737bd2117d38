"""`tidemq keys token|tokens|revoke-token`: bearer tokens for the REST API.

A token acts in one account, like an access key, and is presented as
`Authorization: Bearer <token>`. `token` prints it once; only its SHA-256 is kept
(control_plane/bearer_tokens.py). Tokens live in the same control plane as the access
keys, found the same way (tidemq/cli/keys.py); no master key is needed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from typing import Any

from control_plane.access_keys import DEFAULT_ACCOUNT_ID
from control_plane.bearer_tokens import BearerToken, BearerTokens
from control_plane.clock import SystemClock
from control_plane.redis_client import RedisClient
from tidemq.settings import Settings

COMMANDS = frozenset({"token", "tokens", "revoke-token"})
DEFAULT_TTL_DAYS = 30
_DAY_MS = 24 * 3600 * 1000

OpenRedis = Callable[[Settings], AbstractAsyncContextManager[RedisClient]]


def add_parsers(actions: Any, where: argparse.ArgumentParser) -> None:
    """Adds the token subcommands beside `tidemq keys create|list|revoke`."""
    token = actions.add_parser(
        "token",
        parents=[where],
        help="make a bearer token for the REST API and print it (once)",
        description="Make a bearer token: `Authorization: Bearer <token>` on the REST API "
        "acts in the token's account until it expires or is revoked.",
    )
    token.add_argument(
        "--account", default=DEFAULT_ACCOUNT_ID, help=f"12-digit account id ({DEFAULT_ACCOUNT_ID})"
    )
    token.add_argument(
        "--ttl-days",
        type=int,
        default=DEFAULT_TTL_DAYS,
        help=f"days until it expires ({DEFAULT_TTL_DAYS})",
    )
    tokens = actions.add_parser(
        "tokens",
        parents=[where],
        help="show bearer tokens (never the tokens themselves)",
        description="List bearer tokens: id, account, created, expires.",
    )
    tokens.add_argument("--account", help="only this account's tokens")
    revoke = actions.add_parser(
        "revoke-token",
        parents=[where],
        help="remove a bearer token; requests with it are refused at once",
        description="Revoke a bearer token, named by its id (from `tidemq keys tokens`) or "
        "by the token itself.",
    )
    revoke.add_argument("token", metavar="TOKEN_ID_OR_TOKEN")


async def run(settings: Settings, args: argparse.Namespace, open_redis: OpenRedis) -> int:
    async with open_redis(settings) as redis:
        tokens = BearerTokens(redis, SystemClock())
        if args.keys_command == "token":
            return await _token(tokens, args)
        if args.keys_command == "tokens":
            return await _tokens(tokens, args)
        return await _revoke(tokens, args)


async def _token(tokens: BearerTokens, args: argparse.Namespace) -> int:
    if not 1 <= args.ttl_days <= 3650:
        print("tidemq keys token: --ttl-days must be from 1 to 3650", file=sys.stderr)
        return 1
    issued = await tokens.create(args.account, ttl_ms=args.ttl_days * _DAY_MS)
    record = issued.record
    print(f"Created bearer token {record.token_id} for account {record.account_id}.")
    print(f"  token       {issued.token}")
    print(f"  account id  {record.account_id}")
    print(f"  expires     {_utc(record.expires_ms)} UTC")
    print("The token is shown only now; TideMQ keeps only its SHA-256 and cannot show it again.")
    print(f"  curl -H 'Authorization: Bearer {issued.token}' <endpoint>/v1/queues")
    return 0


async def _tokens(tokens: BearerTokens, args: argparse.Namespace) -> int:
    listed = await tokens.list_tokens(args.account)
    if not listed:
        print("No bearer tokens." if args.account is None else f"No tokens for {args.account}.")
        return 0
    now_ms = SystemClock().now_ms()
    print("TOKEN ID          ACCOUNT       CREATED (UTC)        EXPIRES (UTC)")
    for token in listed:
        note = "  (expired)" if token.expired(now_ms) else ""
        print(
            f"{token.token_id}  {token.account_id}  {_utc(token.created_ms)}  "
            f"{_utc(token.expires_ms)}{note}"
        )
    return 0


async def _revoke(tokens: BearerTokens, args: argparse.Namespace) -> int:
    revoked: BearerToken | None = await tokens.revoke(args.token)
    if revoked is None:
        print("tidemq keys revoke-token: there is no such bearer token", file=sys.stderr)
        return 1
    print(
        f"Revoked bearer token {revoked.token_id} of account {revoked.account_id}; "
        "requests with it are refused from now on."
    )
    return 0


def _utc(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S")
