"""Settings: command-line flags over `TIDEMQ_*` environment variables over a TOML file
over defaults. One frozen object, read once at start.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal, get_args

from control_plane.redis_client import RedisUrlError, check_url
from control_plane.text_rules import parse_int
from storage_nodes.log.log_config import Durability
from storage_nodes.node import Replication

_ENV_PREFIX = "TIDEMQ_"

LogFormat = Literal["text", "json"]
Allocator = Literal["python", "system"]


# `tidemq node`'s HTTP port unless TIDEMQ_PORT says otherwise: beside its node protocol
# port (9400), clear of the gateways' 9324 up, so both can share a host by default.
NODE_HTTP_PORT = 9401


class SettingsError(ValueError):
    """A setting is missing or malformed; the message says which and how to fix it."""


@dataclass(frozen=True, slots=True)
class Settings:
    host: str = "127.0.0.1"
    # A gateway's (and `tidemq up`'s) HTTP port; a node's HTTP for operators (/healthz,
    # /readyz, /metrics) is on NODE_HTTP_PORT by default.
    port: int = 9324
    data_dir: Path = Path(".tidemq")
    # None: start an embedded Redis under <data_dir>/redis. Else one Redis, e.g.
    # redis://host:6379/0 (rediss:// for TLS, unix:///path), or a Redis Cluster named by
    # any one of its nodes: redis+cluster://host:6379 (rediss+cluster:// for TLS).
    redis_url: str | None = None
    # Base of queue URLs (e.g. https://sqs.example.com); None: from each request's Host.
    public_url: str | None = None
    access_key_id: str | None = None
    secret_access_key: str | None = field(default=None, repr=False)
    # Base64 of the 32-byte key access-key secrets are sealed under; None: the data
    # directory's master.key (tidemq/master_key.py).
    master_key: str | None = field(default=None, repr=False)
    durability: Durability = "fsync"
    # New queues' and topics' `Replication` unless they name one: how a node of a cluster
    # keeps their un-archived tail (docs/durability.md): none, replica or object.
    replication: Replication = "none"
    # The largest MaximumMessageSize a queue may have: SQS's 1 MiB, or lower (1 KiB up).
    max_message_bytes: int = 1024 * 1024
    # The archive (docs/tiering.md): s3://bucket/prefix or file:///dir; None:
    # <data_dir>/archive. The S3 settings: None takes boto3's own defaults.
    archive_url: str | None = None
    s3_endpoint_url: str | None = None
    s3_region: str | None = None
    s3_access_key_id: str | None = None
    s3_secret_access_key: str | None = field(default=None, repr=False)
    # A segment is sealed (and then tiered) at this size, or this old.
    segment_bytes: int = 128 * 1024 * 1024
    segment_ms: int = 3_600_000
    # Tiered segments kept on local disk per partition, by size and by age.
    local_retention_bytes: int = 1024**3
    local_retention_ms: int = 86_400_000
    # All partitions' local segments; past it publishes get 503 until tiering catches up.
    disk_budget_bytes: int | None = None
    # A deleted queue's archive goes this long after the deletion.
    archive_delete_grace_ms: int = 7 * 86_400_000
    # How long the archive keeps segments; None: forever. At least 14 days, SQS's longest
    # MessageRetentionPeriod, so that no message still in a queue leaves the archive.
    archive_retention_ms: int | None = None
    archive_cache_bytes: int = 256 * 1024 * 1024
    # A request (headers and body) must arrive whole within this many seconds.
    request_read_timeout_s: int = 30
    # Open connections; past it new ones are answered 503 (each long poll holds one).
    max_connections: int = 10_000
    # New connections accepted, new connections' first requests read, and connections
    # closed by their clients taken down, each at most this many per turn of the event
    # loop; the rest wait for the next turns, so that a storm of connections cannot hold
    # up a connection already served (tidemq/http_server.py, tidemq/http_protocol.py).
    # 16 rather than 64: each turn of a storm is then a quarter as long, and a request of
    # a connection already served waits a few such turns (docs/performance.md,
    # "Stalls at first use, rounds of 16, Redis connections at start").
    accept_per_round: int = 16
    # Requests doing work at once, all callers together and per caller (an access key, a
    # bearer token); the others wait their caller's turn (gateway/admission.py).
    max_active_requests: int = 128
    max_active_requests_per_caller: int = 32
    # The most queues (and topics, and subscriptions) /metrics shows (docs/operations.md).
    metrics_max_queues: int = 1_000
    # When set, /metrics wants `Authorization: Bearer <this>`.
    metrics_token: str | None = field(default=None, repr=False)
    # The allocator of Python objects in tidemq up and tidemq gateway: CPython's own
    # (fast), or the C library's (gives a burst's memory back; tidemq/allocator.py).
    allocator: Allocator = "python"
    # Log lines as text, or as JSON objects one per line (tidemq/logs.py).
    log_format: LogFormat = "text"
    # A log record per HTTP request and WebSocket (logger tidemq.access).
    access_log: bool = False
    # The cluster (docs/cluster.md). `tidemq node` listens on host:node_port and tells
    # gateways node_address (default: the address it listens on; node_port 0: any free
    # port, which it prints); node_id names the
    # process (default: made up at start, unique per process).
    node_id: str | None = None
    node_port: int = 9400
    node_address: str | None = None
    # A partition lease's time to live, and a node registration's: a node stopped this
    # long loses its partitions.
    lease_ttl_ms: int = 10_000
    # How long a gateway waits for a node's answer, and at most for a partition's new
    # owner after a failure, before the request fails with 503.
    node_request_timeout_ms: int = 10_000

    @classmethod
    def load(
        cls,
        flags: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
        config_file: Path | None = None,
        defaults: Settings | None = None,
    ) -> Settings:
        """`defaults`: a command's own defaults, where they differ from these (`tidemq
        node` serves its HTTP on NODE_HTTP_PORT)."""
        env = os.environ if env is None else env
        settings = defaults or cls()
        path = config_file or (Path(env["TIDEMQ_CONFIG"]) if env.get("TIDEMQ_CONFIG") else None)
        if path is not None:
            settings = settings._merged(_read_toml(path), f"config file {path}")
        from_env = {
            f.name: env[_ENV_PREFIX + f.name.upper()]
            for f in fields(cls)
            if env.get(_ENV_PREFIX + f.name.upper())
        }
        settings = settings._merged(from_env, "environment")
        given = {k: v for k, v in (flags or {}).items() if v is not None}
        settings = settings._merged(given, "command line")
        if settings.max_active_requests_per_caller > settings.max_active_requests:
            raise SettingsError(
                "max_active_requests_per_caller must not exceed max_active_requests "
                f"({settings.max_active_requests_per_caller} > {settings.max_active_requests})"
            )
        return settings

    def _merged(self, values: Mapping[str, Any], source: str) -> Settings:
        known = {f.name for f in fields(self)}
        changes: dict[str, Any] = {}
        for name, value in values.items():
            if name not in known:
                raise SettingsError(f"unknown setting {name!r} in {source}")
            changes[name] = _coerce(name, value, source)
        return replace(self, **changes)


def _whole_number(value: Any) -> int:
    """The number a setting writes in ASCII digits, or -1 (which every check refuses):
    `str.isdigit` also takes digits `int()` does not (`²`)."""
    number = parse_int(str(value))
    return -1 if number is None or number < 0 else number


def _coerce(name: str, value: Any, source: str) -> Any:
    special = _SPECIAL.get(name)
    if special is not None:
        return special(name, value, source)
    if name in _INTEGERS:
        low = _INTEGERS[name]
        number = _whole_number(value)
        if number < low:
            raise SettingsError(f"{name} must be a whole number >= {low} ({source}: {value!r})")
        return number
    if name in _CHOICES:
        if value not in _CHOICES[name]:
            choices = ", ".join(_CHOICES[name])
            raise SettingsError(f"{name} must be one of {choices} ({source}: {value!r})")
        return value
    if name == "redis_url":
        try:
            check_url(str(value))
        except RedisUrlError as exc:
            raise SettingsError(f"redis_url: {exc} ({source})") from exc
    return str(value)


def _port(name: str, value: Any, source: str) -> int:
    try:
        port = int(value)
    except (TypeError, ValueError):
        port = -1
    # 0: any free port, which a node takes and prints (a gateway refuses it: its endpoint
    # is printed, and built into queue URLs, before it listens).
    if not 0 <= port < 65536:
        raise SettingsError(f"{name} must be a number from 0 to 65535 ({source}: {value!r})")
    return port


def _path(name: str, value: Any, source: str) -> Path:
    return Path(str(value)).expanduser()


def _max_message_bytes(name: str, value: Any, source: str) -> int:
    size = _whole_number(value)
    if not 1024 <= size <= 1024 * 1024:
        raise SettingsError(f"max_message_bytes must be from 1024 to 1048576 ({source}: {value!r})")
    return size


def _flag(name: str, value: Any, source: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise SettingsError(f"{name} must be true or false, 1 or 0 ({source}: {value!r})")


# Settings with a reader of their own.
_SPECIAL: dict[str, Callable[[str, Any, str], Any]] = {
    "port": _port,
    "node_port": _port,
    "data_dir": _path,
    "max_message_bytes": _max_message_bytes,
    "access_log": _flag,
}

# Settings that take one of a few words.
_CHOICES: dict[str, tuple[str, ...]] = {
    "durability": get_args(Durability),
    "replication": get_args(Replication),
    "log_format": get_args(LogFormat),
    "allocator": get_args(Allocator),
}

# Integer settings and their least values.
_INTEGERS = {
    "segment_bytes": 1024,
    "segment_ms": 1,
    "local_retention_bytes": 0,
    "local_retention_ms": 0,
    "disk_budget_bytes": 1,
    "archive_delete_grace_ms": 0,
    "archive_cache_bytes": 1024 * 1024,
    "archive_retention_ms": 14 * 86_400_000,
    "request_read_timeout_s": 1,
    "max_connections": 1,
    "metrics_max_queues": 1,
    "lease_ttl_ms": 100,
    "node_request_timeout_ms": 100,
    "accept_per_round": 1,
    "max_active_requests": 1,
    "max_active_requests_per_caller": 1,
}


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except OSError as exc:
        raise SettingsError(f"cannot read config file {path}: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"config file {path} is not valid TOML: {exc}") from exc
