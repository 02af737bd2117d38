"""Giving a pending tail up for lost, when its node's disk is gone for good.

A pending tail (manifest.py) waits for the records of a failed tenure: from that node's
disk when it returns, or from tail copies (storage_nodes/copies). For a stream with
replication `none` whose node never returns, nothing will ever fill it, and its
messages stay unavailable. An operator then gives it up (`tidemq cluster forget-tail`,
docs/cluster.md), as Kafka's unclean leader election gives up a dead leader's records:
its offsets become a gap, never written for readers, so receives drop their claims
instead of waiting.

Only the partition's owner may write its manifest (fencing by writer epoch), so the
operator does not: `request` puts a small object under `give-ups/` (layout.py), and the
owner applies it on its next round (`apply`), after listing the tails offered, so that
a tail whose records arrived meanwhile is filled, not given up. A node that returns
after the give-up finds its tail no longer pending: its offer is ignored and its old log
deleted (storage_nodes/takeover.py), so nothing given up comes back.

Blocking functions (the store's calls), for worker threads.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import orjson

from storage_nodes.archive import layout
from storage_nodes.archive.manifest import Manifest, ManifestError, Manifests, PendingTail
from storage_nodes.archive.object_store import ObjectNotFound, ObjectStore

log = logging.getLogger(__name__)


def pending_tails(
    manifests: Manifests, stream_id: str, partitions: int
) -> list[tuple[int, PendingTail]]:
    """The pending tails of the stream's partitions, by partition. Raises
    ObjectStoreError."""
    found = []
    for partition in range(partitions):
        manifest, _ = manifests.read(stream_id, partition)
        found += [(partition, tail) for tail in (manifest.pending if manifest else ())]
    return found


def request(store: ObjectStore, stream_id: str, partition: int, tail: PendingTail) -> None:
    """Asks the partition's owner to give `tail` up (idempotent)."""
    body = {
        "format": layout.FORMAT_VERSION,
        "tail": {
            "base_offset": tail.base_offset,
            "end_offset": tail.end_offset,
            "lease_epoch": tail.lease_epoch,
        },
    }
    key = layout.give_up(stream_id, partition, tail.base_offset, tail.end_offset)
    store.put_bytes(key, orjson.dumps(body))


def apply(
    manifests: Manifests, stream_id: str, partition: int, writer_epoch: int
) -> Manifest | None:
    """The owner gives up each tail requested that is still pending, and deletes the
    requests; the manifest if one was given up, else None. Raises ObjectStoreError,
    Fenced."""
    store = manifests.store
    changed = None
    for info in list(store.list(layout.give_ups_prefix(stream_id, partition))):
        try:
            tail = _parse(store.get_bytes(info.key))
        except ObjectNotFound:
            continue
        except ManifestError as exc:
            log.error("%s: %s; left alone", info.key, exc)
            continue
        current, _ = manifests.read(stream_id, partition)
        pending = [t for t in current.pending if t == tail] if current is not None else []
        if pending:
            tail = pending[0]  # with its node id, for the log
            changed = manifests.update(stream_id, partition, writer_epoch, _giving_up(tail))
            log.warning(
                "%s/%d: gave the pending tail %d-%d (epoch %d, node %s) up for lost, as "
                "an operator asked: %d offsets are never-written now",
                stream_id, partition, tail.base_offset, tail.end_offset, tail.lease_epoch,
                tail.node_id or "unknown", tail.end_offset - tail.base_offset,
            )  # fmt: skip
        store.delete(info.key)
    return changed


def _giving_up(tail: PendingTail) -> Callable[[Manifest], Manifest]:
    return lambda manifest: manifest.given_up(tail)


def _parse(data: bytes) -> PendingTail:
    try:
        raw: Any = orjson.loads(data)
        if raw.get("format") != layout.FORMAT_VERSION:
            raise ManifestError(f"give-up request format {raw.get('format')!r}")
        tail = raw["tail"]
        return PendingTail(
            int(tail["base_offset"]), int(tail["end_offset"]), int(tail["lease_epoch"])
        )
    except (orjson.JSONDecodeError, AttributeError, KeyError, TypeError, ValueError) as exc:
        raise ManifestError(f"malformed give-up request: {exc}") from exc
