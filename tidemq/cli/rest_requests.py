"""How the client commands (`tidemq archive`, `tidemq topic`) ask a running TideMQ: one
request to its REST API, signed with AWS Signature V4.

Where: `--endpoint`, default http://<TIDEMQ_HOST>:<TIDEMQ_PORT>. Signed with the keys in
AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY when set, else TIDEMQ_ACCESS_KEY_ID /
TIDEMQ_SECRET_ACCESS_KEY, else the admin key `tidemq up` keeps in
`<data dir>/credentials.json` (`--data-dir`, TIDEMQ_DATA_DIR).
"""

from __future__ import annotations

import argparse
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import orjson
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials as AwsCredentials

from control_plane.access_keys import DEFAULT_ACCOUNT_ID
from tidemq.settings import Settings

REGION = "us-east-1"
_TIMEOUT_S = 30.0


class CannotAsk(Exception):
    """The request could not be made or answered: settings, credentials, no TideMQ."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`--endpoint` and `--data-dir`, which every client command takes."""
    parser.add_argument("--endpoint", help="TideMQ's URL (default http://TIDEMQ_HOST:TIDEMQ_PORT)")
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="the data directory of `tidemq up`, for its admin key (TIDEMQ_DATA_DIR)",
    )


def ask(
    args: argparse.Namespace, method: str, path: str, body: object | None = None
) -> tuple[Any, int]:
    """The decoded JSON answer to `method path` (with `body` as JSON) and its status.
    Raises CannotAsk, or SettingsError for bad settings."""
    settings = Settings.load(flags={"data_dir": args.data_dir})
    endpoint = (args.endpoint or f"http://{settings.host}:{settings.port}").rstrip("/")
    if not endpoint.startswith(("http://", "https://")):
        raise CannotAsk(f"--endpoint {endpoint}: give an http:// or https:// URL")
    url = f"{endpoint}{path}"
    data = None if body is None else orjson.dumps(body)
    request = AWSRequest(method=method, url=url, data=data)
    SigV4Auth(_credentials(settings), "sqs", REGION).add_auth(request)
    # The scheme is checked above to be http or https.
    http_request = urllib.request.Request(  # noqa: S310
        url, data=data, headers=dict(request.headers.items()), method=method
    )
    try:
        with urllib.request.urlopen(http_request, timeout=_TIMEOUT_S) as response:  # noqa: S310
            status, answer = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, answer = exc.code, exc.read()
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise CannotAsk(
            f"cannot reach TideMQ at {endpoint} ({reason}); is `tidemq up` running?"
        ) from exc
    if not answer:
        return {}, status
    try:
        return orjson.loads(answer), status
    except orjson.JSONDecodeError as exc:
        raise CannotAsk(f"{endpoint} answered {status} without JSON") from exc


def error_text(answer: Any) -> str:
    """`code: message` of a REST error answer."""
    error = answer.get("error", {}) if isinstance(answer, dict) else {}
    return f"{error.get('code')}: {error.get('message')}"


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
        raise CannotAsk(
            f"no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (a key of account "
            f"{DEFAULT_ACCOUNT_ID} or the resource's), or give --data-dir of `tidemq up` "
            f"(cannot read {stored})"
        ) from exc
    return AwsCredentials(found["access_key_id"], found["secret_access_key"])
