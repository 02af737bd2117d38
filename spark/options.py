"""The reader's options, parsed once into a frozen value (docs/spark.md lists them).

  path                 s3://bucket/prefix or file:///directory (a bare path is a directory)
  account              account id (default 123456789012, TideMQ's default account)
  queue | topic        the stream's name (exactly one of the two)
  stream_id            read this stream rather than the newest one of the name
  include_deleted      "true": also read a stream marked deleted (during its grace period)
  partitions           "0,2,5": only these partitions
  start_offset, end_offset              offsets [start, end) in every partition
  start_timestamp_ms, end_timestamp_ms  record timestamps [start, end), ms since the epoch
  max_split_bytes      a segment larger than this is read as several input partitions
                       (default 64 MiB), split at batch boundaries found in its index
  s3_endpoint_url, s3_region, s3_access_key_id, s3_secret_access_key, s3_path_style
                       how to reach S3; unset: boto3's defaults (AWS_* variables, ...)
streaming only:
  starting_position    "earliest" (default: everything archived) or "latest" (only
                       segments tiered after the query first starts)
  max_segments_per_trigger  at most this many segments per micro-batch
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from spark.bounds import Bounds
from spark.errors import OptionError
from storage_nodes.archive.stores import S3Options

DEFAULT_ACCOUNT_ID = "123456789012"
DEFAULT_MAX_SPLIT_BYTES = 64 * 1024 * 1024

Kind = Literal["queue", "topic"]
StartingPosition = Literal["earliest", "latest"]

_KNOWN = frozenset(
    (
        "path", "account", "queue", "topic", "stream_id", "include_deleted", "partitions",
        "start_offset", "end_offset", "start_timestamp_ms", "end_timestamp_ms",
        "max_split_bytes", "filter_pushdown", "s3_endpoint_url", "s3_region", "s3_access_key_id",
        "s3_secret_access_key", "s3_path_style", "starting_position",
        "max_segments_per_trigger",
    )
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class ReadOptions:
    url: str
    account_id: str
    kind: Kind
    name: str | None  # None only when stream_id names the stream
    stream_id: str | None
    include_deleted: bool
    bounds: Bounds
    max_split_bytes: int
    filter_pushdown: bool
    s3: S3Options = field(repr=False)
    starting_position: StartingPosition
    max_segments_per_trigger: int | None


def parse_options(options: Mapping[str, str]) -> ReadOptions:
    """Raises OptionError naming the option and what it accepts."""
    options = {key.lower(): value for key, value in options.items()}
    unknown = sorted(set(options) - _KNOWN)
    if unknown:
        raise OptionError(
            f"unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(_KNOWN))}"
        )
    url = options.get("path")
    if not url:
        raise OptionError('option "path" is required: s3://bucket/prefix or file:///directory')
    if "queue" in options and "topic" in options:
        raise OptionError('give "queue" or "topic", not both')
    kind: Kind = "topic" if "topic" in options else "queue"
    name = options.get(kind) or None
    stream_id = options.get("stream_id") or None
    if name is None and stream_id is None:
        raise OptionError('option "queue" (or "topic", or "stream_id") is required')
    starting = options.get("starting_position", "earliest")
    if starting not in ("earliest", "latest"):
        raise OptionError(f'starting_position must be "earliest" or "latest", not {starting!r}')
    return ReadOptions(
        url=url,
        account_id=options.get("account") or DEFAULT_ACCOUNT_ID,
        kind=kind,
        name=name,
        stream_id=stream_id,
        include_deleted=_flag(options, "include_deleted", default=False),
        bounds=_bounds(options),
        max_split_bytes=_integer(options, "max_split_bytes", minimum=1) or DEFAULT_MAX_SPLIT_BYTES,
        filter_pushdown=_flag(options, "filter_pushdown", default=False),
        s3=S3Options(
            endpoint_url=options.get("s3_endpoint_url") or None,
            region=options.get("s3_region") or None,
            access_key_id=options.get("s3_access_key_id") or None,
            secret_access_key=options.get("s3_secret_access_key") or None,
            path_style=_flag(options, "s3_path_style", default=True),
        ),
        starting_position="latest" if starting == "latest" else "earliest",
        max_segments_per_trigger=_integer(options, "max_segments_per_trigger", minimum=1),
    )


def _bounds(options: Mapping[str, str]) -> Bounds:
    partitions = None
    if options.get("partitions"):
        try:
            partitions = frozenset(int(p) for p in options["partitions"].split(",") if p.strip())
        except ValueError:
            raise OptionError(
                f'partitions must be comma-separated numbers ("0,2"), not {options["partitions"]!r}'
            ) from None
        if any(p < 0 for p in partitions):
            raise OptionError("partitions are numbered from 0")
    return Bounds(
        partitions=partitions,
        start_offset=_integer(options, "start_offset", minimum=0) or 0,
        end_offset=_integer(options, "end_offset", minimum=0),
        start_timestamp_ms=_integer(options, "start_timestamp_ms"),
        end_timestamp_ms=_integer(options, "end_timestamp_ms"),
    )


def _integer(options: Mapping[str, str], name: str, minimum: int | None = None) -> int | None:
    raw = options.get(name)
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        raise OptionError(f"{name} must be an integer, not {raw!r}") from None
    if minimum is not None and value < minimum:
        raise OptionError(f"{name} must be at least {minimum}, not {value}")
    return value


def _flag(options: Mapping[str, str], name: str, *, default: bool) -> bool:
    raw = options.get(name)
    if raw is None or raw == "":
        return default
    if raw.lower() in ("true", "1", "yes"):
        return True
    if raw.lower() in ("false", "0", "no"):
        return False
    raise OptionError(f'{name} must be "true" or "false", not {raw!r}')
