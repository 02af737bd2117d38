"""A partition changing hands between the storage nodes of a cluster (docs/cluster.md).

Taking a partition over (`take_over`), after its lease, in this order:
1. the offsets the last tenure reserved past what the archive holds or awaits become a
   *pending tail* of the manifest (storage_nodes/archive/manifest.py), written under this
   node's writer epoch before anything else, so that the next owner knows of it even if
   this one fails before starting;
2. tails this node can recover at once are listed: its own, left on this disk by an
   earlier tenure of this node (`<stream>/<partition>.tenure.json` says which), those
   whose tail copies it finds (replication `replica` or `object`, storage_nodes/copies:
   its own replica files as the last owner's follower, and the object copies), and
   those other nodes have offered (storage_nodes/archive/tail_recovery.py); then the
   tails an operator gave up for lost become gaps (storage_nodes/archive/tail_give_ups.py);
3. the log starts over, empty, at the manifest's end (never below the last reservation),
   and the new tenure is written down beside it.
The caller then begins its reservation at the offset returned.

Giving back a tail (`offer_leftover`): a node back from a crash, or stopped past its
lease, holds a log of a partition it no longer owns. Each pending tail of that log's
tenure is uploaded and offered to the owner; once none is pending and a later tenure has
reserved offsets (so that it has recorded its pending tails first), the log is deleted.
A follower holding copies of a pending tail of a partition it does not own offers them
the same way (`offer_replica`), and deletes copies nothing awaits.

Copies used. A tenure's copies fill only that tenure's pending tail, and only at its
offsets (below its reserved end): a fenced node's later copies are never read. Copies
of the tail past the archive are all in one place (the copier archives before it moves
them, storage_nodes/copies/copier.py), so a tail is filled from the first place that
has any; where none has, it stays pending for the node that wrote it.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

import orjson

from storage_nodes.archive import tail_give_ups
from storage_nodes.archive.manifest import Manifest, PendingTail
from storage_nodes.archive.object_store import ObjectStoreError
from storage_nodes.archive.tail_recovery import TailRecovery, records_of
from storage_nodes.copies import batches, object_copies
from storage_nodes.copies.replica_store import ReplicaStore
from storage_nodes.local_node import LocalNode
from storage_nodes.log.partition_log import PartitionLog
from storage_nodes.log.record import Record
from storage_nodes.node import ArchiveUnavailable

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class TakenOver:
    start_offset: int  # where the new tenure's log starts
    pending: tuple[PendingTail, ...]  # tails still awaited (unavailable until recovered)


@dataclass(frozen=True, slots=True)
class Tenure:
    """Which lease tenure wrote the local log of a partition, from which offset."""

    lease_epoch: int
    start_offset: int


class Takeovers:
    """Not thread-safe; one event loop. The caller serialises calls per partition."""

    def __init__(
        self, node: LocalNode, node_dir: Path, *, replicas: ReplicaStore | None = None
    ) -> None:
        """`replicas`: the copies this node keeps as other owners' follower."""
        self._replicas = replicas
        tiering = node.tiering
        if tiering is None or node.archive_reader is None:
            raise ValueError("a node of a cluster needs an archive")
        self._node = node
        self._tiering = tiering
        self._manifests = tiering.manifests
        self._recovery = TailRecovery(tiering, tiering.manifests, node_dir)

    async def take_over(
        self,
        stream_id: str,
        partition: int,
        *,
        node_id: str,
        writer_epoch: int,
        lease_epoch: int,
        reserved_epoch: int,
        reserved_end: int,
    ) -> TakenOver:
        """Starts the tenure `lease_epoch` of node `node_id` after the last one's
        reservation (`reserved_*`). ArchiveUnavailable if the archive cannot be read or
        written (nothing is served then)."""
        self._tiering.adopt(stream_id, partition, writer_epoch)

        def with_pending(manifest: Manifest) -> Manifest:
            # The next owner names this node in this tenure's pending tail, if any.
            mine = replace(manifest, tenure_epoch=lease_epoch, tenure_node=node_id)
            if reserved_end <= manifest.end_offset:
                return mine
            # The last tenure's node, if it took the partition over with this version.
            last = manifest.tenure_node if manifest.tenure_epoch == reserved_epoch else ""
            tail = PendingTail(manifest.end_offset, reserved_end, reserved_epoch, last)
            return mine.with_pending(tail)

        try:
            manifest = await asyncio.to_thread(
                self._manifests.update, stream_id, partition, writer_epoch, with_pending
            )
            await self._recover_own(stream_id, partition, manifest, writer_epoch)
            await self._recover_copied(stream_id, partition, writer_epoch)
            await asyncio.to_thread(self._recovery.merge_offers, stream_id, partition, writer_epoch)
            await asyncio.to_thread(
                tail_give_ups.apply, self._manifests, stream_id, partition, writer_epoch
            )
            manifest = await asyncio.to_thread(self._node_archive_refresh, stream_id, partition)
        except ObjectStoreError as exc:
            raise ArchiveUnavailable(f"the archive cannot be read now: {exc}") from exc
        start = manifest.end_offset
        await self._node.restart_log(stream_id, partition, start)
        await asyncio.to_thread(
            _write_tenure, self._tenure_path(stream_id, partition), Tenure(lease_epoch, start)
        )
        if manifest.pending:
            log.warning(
                "%s/%d: taken over at offset %d; pending tails (unavailable until "
                "recovered): %s",
                stream_id, partition, start, list(manifest.pending),
            )  # fmt: skip
        return TakenOver(start, manifest.pending)

    async def merge_offers(self, stream_id: str, partition: int) -> tuple[PendingTail, ...]:
        """The owner lists tails other nodes offered since, then gives up those an
        operator gave up for lost; returns those still pending (ObjectStoreError)."""
        writer_epoch = self._tiering.writer_epoch(stream_id, partition)
        merged = await asyncio.to_thread(
            self._recovery.merge_offers, stream_id, partition, writer_epoch
        )
        given_up = await asyncio.to_thread(
            tail_give_ups.apply, self._manifests, stream_id, partition, writer_epoch
        )
        if given_up is not None:
            return given_up.pending
        if merged is None:
            return await asyncio.to_thread(self._pending, stream_id, partition)
        return merged.pending

    def _pending(self, stream_id: str, partition: int) -> tuple[PendingTail, ...]:
        return self._node_archive_refresh(stream_id, partition).pending

    async def _recover_own(
        self, stream_id: str, partition: int, manifest: Manifest, writer_epoch: int
    ) -> None:
        tenure = await asyncio.to_thread(_read_tenure, self._tenure_path(stream_id, partition))
        if tenure is None:
            return
        mine = [t for t in manifest.pending if t.lease_epoch == tenure.lease_epoch]
        if not mine:
            return
        # Opened apart from the node's logs, so that tiering does not see it meanwhile.
        await self._node.hand_over(stream_id, partition, archive=False)
        partition_log = await PartitionLog.open(self._node.streams_dir / stream_id / str(partition))
        try:
            for tail in mine:
                records = records_of(partition_log, tail.base_offset, tail.end_offset)
                entries = await self._recovery.segments_of(
                    stream_id, partition, tail, records, writer_epoch
                )
                await asyncio.to_thread(
                    self._recovery.fill, stream_id, partition, tail, entries, writer_epoch
                )
        finally:
            await partition_log.close()

    async def _recover_copied(self, stream_id: str, partition: int, writer_epoch: int) -> None:
        """Fills each pending tail from its tenure's copies: this node's replica files,
        else the object copies; then deletes them."""
        manifest = await asyncio.to_thread(self._node_archive_refresh, stream_id, partition)
        store = self._manifests.store
        for tail in manifest.pending:
            tenure = (stream_id, partition, tail.lease_epoch)
            found = [] if self._replicas is None else await self._replicas.records(tenure)
            if not any(r.offset in tail for r in found):
                found = await asyncio.to_thread(
                    object_copies.records, store, stream_id, partition, tail.lease_epoch
                )
            if not any(r.offset in tail for r in found):
                continue
            entries = await self._recovery.segments_of(
                stream_id, partition, tail, _iterate(found), writer_epoch
            )
            await asyncio.to_thread(
                self._recovery.fill, stream_id, partition, tail, entries, writer_epoch
            )
            await asyncio.to_thread(
                object_copies.delete_tenure, store, stream_id, partition, tail.lease_epoch
            )
            if self._replicas is not None:
                await self._replicas.delete(tenure)

    async def offer_replica(self, tenure: tuple[str, int, int], reserved_epoch: int) -> None:
        """For copies this node keeps as a follower of a partition it does not own:
        offers those of a pending tail to the owner (tail_recovery.py), and deletes
        them once nothing awaits them (the tail filled, or its tenure over with nothing
        pending, or the archive holding all of them). Raises ObjectStoreError."""
        assert self._replicas is not None
        stream_id, partition, epoch = tenure
        manifest = await asyncio.to_thread(self._node_archive_refresh, stream_id, partition)
        mine = [t for t in manifest.pending if t.lease_epoch == epoch]
        if not mine:
            archived = manifest.segments[-1].end_offset if manifest.segments else 0
            if reserved_epoch > epoch or self._replicas.end_offset(tenure) <= archived:
                await self._replicas.delete(tenure)
            return
        for tail in mine:
            if await asyncio.to_thread(self._recovery.offered, stream_id, partition, tail):
                continue
            found = [r for r in await self._replicas.records(tenure) if r.offset in tail]
            if not found:
                continue
            entries = await self._recovery.segments_of(
                stream_id, partition, tail, _iterate(found), tail.lease_epoch
            )
            await asyncio.to_thread(self._recovery.offer, stream_id, partition, tail, entries)

    def _node_archive_refresh(self, stream_id: str, partition: int) -> Manifest:
        reader = self._node.archive_reader
        assert reader is not None
        return reader.refresh(stream_id, partition)

    # -- tails left on this disk ----------------------------------------------------------

    def leftovers(self) -> list[tuple[str, int]]:
        """Partitions with a tenure file whose log this node has not open (not held)."""
        found = []
        streams_dir = self._node.streams_dir
        if not streams_dir.is_dir():
            return []
        for path in sorted(streams_dir.glob("*/*.tenure.json")):
            stream_id, partition = path.parent.name, int(path.name.split(".")[0])
            if not self._node.is_open(stream_id, partition):
                found.append((stream_id, partition))
        return found

    async def offer_leftover(self, stream_id: str, partition: int, reserved_epoch: int) -> None:
        """Offers the pending tails of a log this node holds but no longer owns;
        deletes the log once nothing of it is awaited. `reserved_epoch`: the tenure that
        reserved last, read before this call. Raises ObjectStoreError."""
        tenure_path = self._tenure_path(stream_id, partition)
        tenure = await asyncio.to_thread(_read_tenure, tenure_path)
        if tenure is None:
            return
        manifest = await asyncio.to_thread(self._node_archive_refresh, stream_id, partition)
        mine = [t for t in manifest.pending if t.lease_epoch == tenure.lease_epoch]
        if not mine:
            if reserved_epoch > tenure.lease_epoch:
                directory = self._node.streams_dir / stream_id / str(partition)
                await asyncio.to_thread(shutil.rmtree, directory, ignore_errors=True)
                await asyncio.to_thread(tenure_path.unlink, missing_ok=True)
                log.info(
                    "%s/%d: the old tail on this disk is not awaited; deleted", stream_id, partition
                )
            return
        offered = [
            t
            for t in mine
            if await asyncio.to_thread(self._recovery.offered, stream_id, partition, t)
        ]
        mine = [t for t in mine if t not in offered]
        if not mine:
            return  # the owner has not listed them yet
        directory = self._node.streams_dir / stream_id / str(partition)
        partition_log = await PartitionLog.open(directory)
        try:
            for tail in mine:
                records = records_of(partition_log, tail.base_offset, tail.end_offset)
                entries = await self._recovery.segments_of(
                    stream_id, partition, tail, records, tail.lease_epoch
                )
                await asyncio.to_thread(self._recovery.offer, stream_id, partition, tail, entries)
        finally:
            await partition_log.close()

    def _tenure_path(self, stream_id: str, partition: int) -> Path:
        return self._node.streams_dir / stream_id / f"{partition}.tenure.json"


async def _iterate(records: list[Record]) -> AsyncIterator[Record]:
    for record in batches.in_offset_order(records):
        yield record


def _read_tenure(path: Path) -> Tenure | None:
    try:
        raw = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    return Tenure(int(raw["lease_epoch"]), int(raw["start_offset"]))


def _write_tenure(path: Path, tenure: Tenure) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(
        orjson.dumps({"lease_epoch": tenure.lease_epoch, "start_offset": tenure.start_offset})
    )
    tmp.replace(path)
