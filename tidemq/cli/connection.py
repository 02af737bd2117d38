"""Where the everyday commands (`tidemq queue`, `send`, `receive`, `tail`, `redrive`,
`stats`) find TideMQ and which credentials they present: the places the AWS CLI reads,
plus TideMQ's own two variables.

Endpoint, first found:
    --endpoint, TIDEMQ_ENDPOINT, AWS_ENDPOINT_URL_SQS, AWS_ENDPOINT_URL, the profile's
    `endpoint_url` in the config file, else http://127.0.0.1:9324 (`tidemq up`).
Credentials, first found:
    --token; --profile (its keys in the credentials file, then the config file);
    TIDEMQ_TOKEN; AWS_ACCESS_KEY_ID with AWS_SECRET_ACCESS_KEY; the profile AWS_PROFILE
    names (else `default`) in those files.
Region (only part of a signature's scope; TideMQ takes any): AWS_REGION,
    AWS_DEFAULT_REGION, the profile's `region`, else us-east-1.

The files are AWS_SHARED_CREDENTIALS_FILE (~/.aws/credentials: `[name]` sections) and
AWS_CONFIG_FILE (~/.aws/config: `[profile name]`, and `[default]`), as for the AWS CLI.
A bearer token is what the WebSocket API needs (`tidemq tail` uses it when there is one);
an access key signs REST requests with AWS Signature Version 4.
"""

from __future__ import annotations

import argparse
import configparser
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tidemq_client import Credentials

DEFAULT_ENDPOINT = "http://127.0.0.1:9324"
DEFAULT_REGION = "us-east-1"


class NoCredentials(Exception):
    """Nothing names credentials, or a named profile has none: a usage error."""


@dataclass(frozen=True, slots=True)
class Target:
    endpoint: str
    credentials: Credentials


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options every everyday command takes."""
    parser.add_argument(
        "--endpoint",
        metavar="URL",
        help="TideMQ's URL (TIDEMQ_ENDPOINT, AWS_ENDPOINT_URL; default http://127.0.0.1:9324)",
    )
    parser.add_argument(
        "--profile", help="a profile of ~/.aws/credentials and ~/.aws/config (AWS_PROFILE)"
    )
    parser.add_argument("--token", help="a bearer token from `tidemq keys token` (TIDEMQ_TOKEN)")
    parser.add_argument(
        "--json", action="store_true", help="print JSON (one object per line when streaming)"
    )


def resolve(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> Target:
    """The endpoint and credentials for `args`, from the places the module names."""
    env = os.environ if env is None else env
    profile_name = args.profile or env.get("AWS_PROFILE") or "default"
    profile = _profile(profile_name, env)
    endpoint = (
        args.endpoint
        or env.get("TIDEMQ_ENDPOINT")
        or env.get("AWS_ENDPOINT_URL_SQS")
        or env.get("AWS_ENDPOINT_URL")
        or profile.get("endpoint_url")
        or DEFAULT_ENDPOINT
    )
    if not endpoint.startswith(("http://", "https://")):
        raise NoCredentials(f"endpoint {endpoint!r}: give an http:// or https:// URL")
    region = (
        env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or profile.get("region")
    ) or DEFAULT_REGION
    return Target(endpoint.rstrip("/"), _credentials(args, env, profile, region))


def _credentials(
    args: argparse.Namespace, env: Mapping[str, str], profile: Mapping[str, str], region: str
) -> Credentials:
    if args.token:
        return Credentials(token=args.token)
    from_profile = _key(profile, region)
    if args.profile:
        if from_profile is None:
            raise NoCredentials(f"profile {args.profile!r} has no access key")
        return from_profile
    if env.get("TIDEMQ_TOKEN"):
        return Credentials(token=env["TIDEMQ_TOKEN"])
    key_id, secret = env.get("AWS_ACCESS_KEY_ID"), env.get("AWS_SECRET_ACCESS_KEY")
    if key_id and secret:
        return Credentials(access_key_id=key_id, secret_access_key=secret, region=region)
    if from_profile is not None:
        return from_profile
    raise NoCredentials(
        "no credentials: set TIDEMQ_TOKEN (`tidemq keys token`), or AWS_ACCESS_KEY_ID and "
        "AWS_SECRET_ACCESS_KEY (as `tidemq up` prints), or give --profile"
    )


def _key(profile: Mapping[str, str], region: str) -> Credentials | None:
    key_id = profile.get("aws_access_key_id")
    secret = profile.get("aws_secret_access_key")
    if key_id and secret:
        return Credentials(access_key_id=key_id, secret_access_key=secret, region=region)
    return None


def _profile(name: str, env: Mapping[str, str]) -> dict[str, str]:
    """The profile's settings: the config file's, overridden by the credentials file's
    (as the AWS CLI merges them). Missing files or sections give nothing."""
    home = Path(env.get("HOME") or Path.home())
    config_file = Path(env.get("AWS_CONFIG_FILE") or home / ".aws" / "config")
    credentials_file = Path(env.get("AWS_SHARED_CREDENTIALS_FILE") or home / ".aws" / "credentials")
    config_section = name if name == "default" else f"profile {name}"
    merged = _section(config_file, config_section)
    merged.update(_section(credentials_file, name))
    return merged


def _section(path: Path, section: str) -> dict[str, str]:
    parser = configparser.RawConfigParser()
    try:
        parser.read_string(path.read_text())
    except (OSError, UnicodeDecodeError, configparser.Error):
        return {}
    return dict(parser.items(section)) if parser.has_section(section) else {}
