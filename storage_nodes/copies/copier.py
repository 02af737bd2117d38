"""The owner's side of tail copies: each append of a `replica` or `object` stream is
copied, with its offsets and the owner's lease epoch, after the local log has it and
before it is acknowledged (docs/durability.md).

Group commit. Per partition and tenure one round is in flight at a time; the appends
arriving meanwhile wait and go together in the next round, so a busy partition pays a
copy per round, not per append. A round of `object` is one object (object_copies.py);
of `replica`, one REPLICATE request to the follower (replica_store.py on its side).

The follower is the first node after this one in the partition's rendezvous ranking
over the live nodes (control_plane.assignment, passed in as `weight`): the node that
takes the partition over when this one dies, so that the copy is usually on the new
owner's own disk already.
Switching followers (the follower failed a round, or the ranking changed) first seals
and archives this tenure's log, so that every append acknowledged so far is in the
archive and the new follower needs only what comes after: an acknowledged record is
always on a live copy besides the owner's disk (the follower's, or the archive), as
long as one node fails at a time. With no other live node a round goes to the object
store instead (a switch like any other).

Fencing. The epoch is read before the copy and checked after it: a node whose lease ran
out meanwhile (by its own clock, storage_nodes' Tenures) does not acknowledge, since a
new owner may have recovered the tail without this copy. It answers StorageUnavailable,
not NotOwner: the records are in its log and perhaps in a copy the next owner recovers,
so the gateway must not append them again elsewhere (docs/cluster.md, "Appends are not
repeated twice"). A new owner uses copies of a
tenure only for that tenure's pending tail (offsets below its reserved end), so copies
a fenced node makes past it are never read.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from storage_nodes import metrics
from storage_nodes.archive.object_store import ObjectStore, ObjectStoreError
from storage_nodes.copies import batches, object_copies
from storage_nodes.node import (
    NodeError,
    NodeUnreachable,
    NotOwner,
    RecordIn,
    Replication,
    StorageUnavailable,
)
from storage_nodes.wire.client import NodeClient

log = logging.getLogger(__name__)

# Followers tried for one round before the appends fail (each switch archives first).
_FOLLOWER_TRIES = 3
# A replica round's target when no other node is live.
_OBJECT_STORE = "the object store"


class Tenures(Protocol):
    """The owner's leases, as its LeaseKeeper holds them."""

    def current_epoch(self, stream_id: str, partition: int) -> int:
        """The lease epoch held now, by this node's clock; NotOwner if none."""
        ...


@dataclass(slots=True)
class _Waiting:
    data: bytes
    mode: Replication
    done: asyncio.Future[None]


@dataclass(slots=True)
class _Partition:
    """One tenure's copier: the appends waiting for the next round."""

    waiting: list[_Waiting] = field(default_factory=list)
    task: asyncio.Task[None] | None = None
    # Where the replica rounds went so far: a follower's node id, or _OBJECT_STORE.
    target: str | None = None
    objects: list[str] = field(default_factory=list)  # copies not yet known archived


class TailCopier:
    """Not thread-safe: one event loop."""

    def __init__(
        self,
        node_id: str,
        store: ObjectStore,
        tenures: Tenures,
        *,
        archive: Callable[[str, int], Awaitable[None]],
        archived_end: Callable[[str, int], int],
        weight: Callable[[str, int, str], int],
        timeout_ms: int,
        monotonic_s: Callable[[], float] = time.monotonic,
    ) -> None:
        """`archive(stream, partition)` seals and uploads the partition's log (raising
        NodeError), before a follower switch; `archived_end(stream, partition)` is
        where the archive's copy of it ends, as far as this node knows; `weight(stream,
        partition, node id)` is the node's rendezvous weight for the partition
        (control_plane.assignment.weight: the ranking takeovers follow); `timeout_ms`
        bounds a follower's answer, and is how long a failed follower is passed over."""
        self.node_id = node_id
        self._store = store
        self._tenures = tenures
        self._archive = archive
        self._archived_end = archived_end
        self._weight = weight
        self._timeout_ms = timeout_ms
        self._monotonic_s = monotonic_s
        self._partitions: dict[tuple[str, int, int], _Partition] = {}
        self._live: dict[str, str] = {}  # node id -> address
        self._failed_until_s: dict[str, float] = {}
        self._clients: dict[str, NodeClient] = {}

    def set_live_nodes(self, addresses: Mapping[str, str]) -> None:
        """The live nodes (id -> node protocol address), as membership last listed them."""
        self._live = dict(addresses)

    async def copy(
        self,
        stream_id: str,
        partition: int,
        base_offset: int,
        records: list[RecordIn],
        mode: Replication,
    ) -> None:
        """Returns once the append at `base_offset` is copied as `mode` says (at once
        for `none`). NotOwner if the lease ran out meanwhile; StorageUnavailable if no
        copy could be made: the append must not be acknowledged either way."""
        if mode == "none":
            return
        try:
            epoch = self._tenures.current_epoch(stream_id, partition)
        except NotOwner as exc:
            raise _maybe_written(stream_id, partition, exc) from exc
        key = (stream_id, partition, epoch)
        copier = self._partitions.get(key)
        if copier is None:
            copier = self._partitions[key] = _Partition()
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        copier.waiting.append(_Waiting(batches.encode(base_offset, records), mode, done))
        if copier.task is None:
            copier.task = asyncio.create_task(self._rounds(key, copier), name="tail-copies")
        await asyncio.shield(done)
        try:
            current = self._tenures.current_epoch(stream_id, partition)
        except NotOwner as exc:
            raise _maybe_written(stream_id, partition, exc) from exc
        if current != epoch:
            raise _maybe_written(
                stream_id, partition, f"lost its lease while copying (epoch {epoch})"
            )

    async def _rounds(self, key: tuple[str, int, int], copier: _Partition) -> None:
        waiting: list[_Waiting] = []
        try:
            while copier.waiting:
                waiting, copier.waiting = copier.waiting, []
                metrics.TAIL_COPY_APPENDS.observe(len(waiting))
                for mode in ("object", "replica"):
                    those = [w for w in waiting if w.mode == mode]
                    if those:
                        await self._round(key, copier, those)
        except BaseException as exc:
            # Cancellation at shutdown: no waiter is left hanging, neither of the round
            # in progress nor of the next (settling one twice is harmless).
            for w in [*waiting, *copier.waiting]:
                _settle(w.done, StorageUnavailable(f"copying failed: {exc!r}"))
            copier.waiting = []
            if not isinstance(exc, asyncio.CancelledError):
                log.exception("tail copies of %s/%d failed", key[0], key[1])
            raise
        finally:
            copier.task = None

    async def _round(
        self, key: tuple[str, int, int], copier: _Partition, those: list[_Waiting]
    ) -> None:
        mode = those[0].mode
        data = b"".join(w.data for w in those)
        try:
            if mode == "object":
                await self._to_object(key, copier, data)
            else:
                await self._to_follower(key, copier, data)
        except Exception as exc:
            if not isinstance(exc, NodeError | ObjectStoreError | ValueError | OSError):
                log.exception("tail copies of %s/%d failed", key[0], key[1])
            metrics.TAIL_COPY_FAILURES.labels(mode).inc()
            error = StorageUnavailable(
                f"the tail of {key[0]}/{key[1]} could not be copied ({mode}): {exc}"
            )
            for w in those:
                _settle(w.done, error)
        else:
            for w in those:
                _settle(w.done, None)

    async def _to_object(self, key: tuple[str, int, int], copier: _Partition, data: bytes) -> None:
        stream_id, partition, epoch = key
        started_s = self._monotonic_s()
        copied = await asyncio.to_thread(
            object_copies.put, self._store, stream_id, partition, epoch, data
        )
        copier.objects.append(copied)
        metrics.TAIL_COPY_ROUNDS.labels("object").inc()
        metrics.TAIL_COPY_SECONDS.labels("object").observe(self._monotonic_s() - started_s)

    async def _to_follower(
        self, key: tuple[str, int, int], copier: _Partition, data: bytes
    ) -> None:
        stream_id, partition, epoch = key
        error: Exception | None = None
        for _ in range(_FOLLOWER_TRIES):
            follower = self._follower(stream_id, partition)
            target = follower or _OBJECT_STORE
            if copier.target is not None and copier.target != target:
                # Everything acknowledged so far goes to the archive first: the new
                # target gets only what follows, and the copies of the tail past the
                # archive are all in one place (a new owner that finds some has all).
                await self._archive(stream_id, partition)
                metrics.FOLLOWER_SWITCHES.inc()
                log.info(
                    "%s/%d: tail copies move from %s to %s",
                    stream_id, partition, copier.target, target,
                )  # fmt: skip
            copier.target = target
            if follower is None:
                # No other live node: the object store keeps the copy instead.
                await self._to_object(key, copier, data)
                return
            started_s = self._monotonic_s()
            try:
                await self._client(follower).replicate(
                    stream_id,
                    partition,
                    epoch,
                    data,
                    archived_end=self._archived_end(stream_id, partition),
                )
            except (NodeError, ValueError) as exc:
                log.warning(
                    "%s/%d: follower %s failed a copy (%s); trying the next one",
                    stream_id, partition, follower, exc,
                )  # fmt: skip
                self._failed_until_s[follower] = self._monotonic_s() + self._timeout_ms / 1000
                error = exc
                continue
            metrics.TAIL_COPY_ROUNDS.labels("replica").inc()
            metrics.TAIL_COPY_SECONDS.labels("replica").observe(self._monotonic_s() - started_s)
            return
        raise StorageUnavailable(f"no follower took the copy: {error}")

    def _follower(self, stream_id: str, partition: int) -> str | None:
        """The first live node after this one in the partition's ranking, passing over
        those that failed a copy lately."""
        now_s = self._monotonic_s()
        candidates = [
            node_id
            for node_id in self._live
            if node_id != self.node_id and self._failed_until_s.get(node_id, 0.0) <= now_s
        ]
        if not candidates:
            return None
        return max(candidates, key=lambda n: (self._weight(stream_id, partition, n), n))

    def _client(self, node_id: str) -> NodeClient:
        address = self._live.get(node_id)
        if address is None:  # it left the live nodes while the round was archiving
            raise NodeUnreachable(f"node {node_id} is no longer live", sent=False)
        client = self._clients.get(address)
        if client is None:
            client = self._clients[address] = NodeClient(
                address, timeout_ms=self._timeout_ms, producer_id=self.node_id
            )
        return client

    # -- the copies' lifetime -------------------------------------------------------------

    async def tend(self) -> None:
        """A round of upkeep (a third of the lease TTL apart): a partition whose follower
        left the live nodes has its tail archived now, not at its next append, so that
        its acknowledged appends are on a live copy again; the object copies the archive
        now holds are deleted. Raises NodeError or ObjectStoreError."""
        for (stream_id, partition, _), copier in list(self._partitions.items()):
            target = copier.target
            # (While a round is in flight, that round switches.)
            left = target not in (None, _OBJECT_STORE) and target not in self._live
            if left and copier.task is None:
                await self._archive(stream_id, partition)
                # A round that began meanwhile may have moved to a new follower (and
                # archived first itself): its target stands.
                if copier.target == target:
                    copier.target = None
                log.info("%s/%d: follower %s left; tail archived", stream_id, partition, target)
            if copier.objects:
                end = self._archived_end(stream_id, partition)
                copier.objects = await asyncio.to_thread(
                    object_copies.delete_covered, self._store, copier.objects, end
                )

    async def ended(self, stream_id: str, partition: int, *, archived: bool) -> None:
        """The tenure of the partition on this node ended. `archived` (a graceful
        hand-over: the archive holds everything): its object copies are deleted; else
        (the lease was lost) they are left for the next owner."""
        for key in [k for k in self._partitions if k[:2] == (stream_id, partition)]:
            copier = self._partitions.pop(key)
            if copier.task is not None:
                await asyncio.gather(copier.task, return_exceptions=True)
            if archived and copier.objects:
                try:
                    await asyncio.to_thread(
                        object_copies.delete_covered, self._store, copier.objects, 1 << 62
                    )
                except ObjectStoreError as exc:
                    log.warning("deleting the copies of %s/%d: %s", stream_id, partition, exc)

    async def close(self) -> None:
        tasks = [c.task for c in self._partitions.values() if c.task is not None]
        await asyncio.gather(*tasks, return_exceptions=True)
        clients, self._clients = self._clients, {}
        for client in clients.values():
            await client.close()


def _settle(done: asyncio.Future[None], error: Exception | None) -> None:
    if done.done():
        return
    if error is None:
        done.set_result(None)
    else:
        done.set_exception(error)


def _maybe_written(stream_id: str, partition: int, why: object) -> StorageUnavailable:
    """The error of an append written to the log whose copy cannot be vouched for.

    Not NotOwner: that tells a gateway the append certainly was not written, and it
    would append it again elsewhere, while the records are in this log (and perhaps in
    a copy the next owner recovers). StorageUnavailable is answered 503, and the
    client's retry is a new message, as after any unanswered send (at least once)."""
    return StorageUnavailable(
        f"{stream_id}/{partition}: appended, but the copy cannot be vouched for ({why}); "
        "it may or may not be delivered"
    )
