"""Where each object of the archive lives, relative to the store's root (docs/formats.md,
"The archive"). Stream ids are lower-case hex, so they never clash with `_names`.

    <stream>/stream.json                             what the stream is (account, name)
    <stream>/deleted.json                            the stream was deleted: when, and
                                                     from when its objects may go
    <stream>/<partition>/manifest.json               the partition's manifest
    <stream>/<partition>/<base>-<end>.seg            a sealed segment's .log bytes
    <stream>/<partition>/<base>-<end>.index          its offset index
    <stream>/<partition>/<base>-<end>.timeindex      its time index
    <stream>/<partition>/tails/<base>-<end>.json     a failed tenure's pending tail,
                                                     recovered by another node than the
                                                     owner: its segments, to be listed
    <stream>/<partition>/give-ups/<base>-<end>.json  an operator's request to give a
                                                     pending tail up for lost, for the
                                                     owner to apply (tail_give_ups.py)
    <stream>/<partition>/copies/<epoch>/<first>-<end>.copy
                                                     a tail copy (replication `object`):
                                                     record batches the tenure `epoch`
                                                     acknowledged, not archived yet
    _names/<account>/<kind>/<name>/<created>-<stream>.json   a stream by its name

Offsets and `created` (ms) are 20 zero-padded digits, so key order is number order; a
segment's `end` is exclusive.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

FORMAT_VERSION = 1
NAMES = "_names"


def stream_prefix(stream_id: str) -> str:
    return f"{stream_id}/"


def stream_descriptor(stream_id: str) -> str:
    return f"{stream_id}/stream.json"


def deletion_marker(stream_id: str) -> str:
    return f"{stream_id}/deleted.json"


def manifest(stream_id: str, partition: int) -> str:
    return f"{stream_id}/{partition}/manifest.json"


def tails_prefix(stream_id: str, partition: int) -> str:
    return f"{stream_id}/{partition}/tails/"


def tail_offer(stream_id: str, partition: int, base_offset: int, end_offset: int) -> str:
    return f"{tails_prefix(stream_id, partition)}{base_offset:020d}-{end_offset:020d}.json"


def give_ups_prefix(stream_id: str, partition: int) -> str:
    return f"{stream_id}/{partition}/give-ups/"


def give_up(stream_id: str, partition: int, base_offset: int, end_offset: int) -> str:
    return f"{give_ups_prefix(stream_id, partition)}{base_offset:020d}-{end_offset:020d}.json"


def copies_prefix(stream_id: str, partition: int, lease_epoch: int | None = None) -> str:
    """Every tail copy of the partition, or of one tenure's."""
    tenure = "" if lease_epoch is None else f"{lease_epoch:020d}/"
    return f"{stream_id}/{partition}/copies/{tenure}"


def tail_copy(
    stream_id: str, partition: int, lease_epoch: int, first_offset: int, end_offset: int
) -> str:
    prefix = copies_prefix(stream_id, partition, lease_epoch)
    return f"{prefix}{first_offset:020d}-{end_offset:020d}.copy"


def tail_copy_range(key: str) -> tuple[int, int] | None:
    """The offsets `[first, end)` a tail copy's key names; None for another key."""
    name = key.rsplit("/", 1)[-1]
    first, _, end = name.removesuffix(".copy").partition("-")
    if not (name.endswith(".copy") and first.isdigit() and end.isdigit()):
        return None
    return int(first), int(end)


def segment_stem(stream_id: str, partition: int, base_offset: int, end_offset: int) -> str:
    return f"{stream_id}/{partition}/{base_offset:020d}-{end_offset:020d}"


def segment_log(stem: str) -> str:
    return f"{stem}.seg"


def segment_index(stem: str) -> str:
    return f"{stem}.index"


def segment_time_index(stem: str) -> str:
    return f"{stem}.timeindex"


def names_prefix(account_id: str, kind: str, name: str) -> str:
    """Every stream that has borne this name, oldest first in key order."""
    return f"{NAMES}/{account_id}/{kind}/{name}/"


def name_entry(account_id: str, kind: str, name: str, created_ms: int, stream_id: str) -> str:
    return f"{names_prefix(account_id, kind, name)}{created_ms:020d}-{stream_id}.json"


def name_entry_of(descriptor: Mapping[str, Any]) -> str:
    """The name entry of a stream, from its `stream.json` (docs/formats.md)."""
    return name_entry(
        descriptor["account_id"],
        descriptor["kind"],
        descriptor["name"],
        descriptor["created_ms"],
        descriptor["stream_id"],
    )
