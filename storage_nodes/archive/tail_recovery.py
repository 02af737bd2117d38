"""Putting a failed tenure's tail into the archive, where its pending tail awaits it.

A pending tail (manifest.py) is filled with segments built from the records found for
it: they are written into a scratch log under `<node dir>/recovery/` starting at the
first record's offset, sealed, and uploaded as ordinary segments, then listed in place
of the pending tail. A tenure's own log is dense; records found in its tail copies
(storage_nodes/copies) may jump, and each run between jumps is a scratch log of its own.
Offsets of the tail without a record found become a gap: the failed tenure reserved
them but gave them to no acknowledged record.

Two ways to list them, because only the partition's current owner may write its
manifest (fencing):
- the owner recovers a tail itself (`fill`): it lists the segments at once;
- another node (a node back from a crash with its old tail on disk) `offer`s them: it
  uploads the segments and a small JSON object naming them under `tails/` (layout.py),
  which the owner lists on its next round (`merge_offers`) and then deletes.

Only records of the tail's own tenure may fill it, and only offsets below its end: a
node's log may hold records past its reservation that it wrote but never acknowledged
(its reservation could not be raised), and those offsets belong to the next tenure.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson

from storage_nodes.archive import layout
from storage_nodes.archive.manifest import (
    Manifest,
    ManifestError,
    Manifests,
    PendingTail,
    SegmentEntry,
    entry_from_json,
    entry_json,
)
from storage_nodes.archive.object_store import ObjectNotFound
from storage_nodes.archive.tiering import Tiering
from storage_nodes.log.log_config import LogConfig
from storage_nodes.log.log_loader import start_log_at
from storage_nodes.log.partition_log import PartitionLog
from storage_nodes.log.record import Record, RecordIn

log = logging.getLogger(__name__)

# Records read from a source log at a time.
_READ_RECORDS = 500


class TailRecovery:
    def __init__(self, tiering: Tiering, manifests: Manifests, node_dir: Path) -> None:
        self._tiering = tiering
        self._manifests = manifests
        self._work_dir = node_dir / "recovery"

    async def segments_of(
        self,
        stream_id: str,
        partition: int,
        tail: PendingTail,
        records: AsyncIterator[Record],
        writer_epoch: int,
    ) -> tuple[SegmentEntry, ...]:
        """Uploads the tail's records (offset order; those outside it are skipped) as
        segments; () if none of them is in the tail. Where the records jump (copies
        found of acknowledged appends, between which an append that was never
        acknowledged left no copy), a new segment begins: the offsets between become a
        gap. Raises ObjectStoreError."""
        base = self._work_dir / stream_id / str(partition) / str(tail.base_offset)
        entries: list[SegmentEntry] = []
        scratch: PartitionLog | None = None
        chunk: list[RecordIn] = []
        runs = 0
        try:
            async for record in records:
                if record.offset not in tail:
                    continue
                if scratch is not None and record.offset < scratch.end_offset + len(chunk):
                    continue  # a record found twice
                if scratch is not None and record.offset != scratch.end_offset + len(chunk):
                    log.info(
                        "%s/%d: the tail's records jump from %d to %d: a gap between",
                        stream_id, partition, scratch.end_offset + len(chunk), record.offset,
                    )  # fmt: skip
                    sealing, scratch = scratch, None
                    entries += await self._sealed(
                        stream_id, partition, sealing, chunk, writer_epoch
                    )
                    chunk = []
                if scratch is None:
                    runs += 1
                    directory = base / str(runs)
                    await asyncio.to_thread(start_log_at, directory, record.offset, 4096)
                    scratch = await PartitionLog.open(directory, LogConfig(durability="none"))
                chunk.append(_record_in(record))
                if len(chunk) >= _READ_RECORDS:
                    await scratch.append(chunk)
                    chunk = []
            if scratch is not None:
                sealing, scratch = scratch, None
                entries += await self._sealed(stream_id, partition, sealing, chunk, writer_epoch)
            return tuple(entries)
        finally:
            if scratch is not None:
                await scratch.close()
            await asyncio.to_thread(shutil.rmtree, base, ignore_errors=True)

    async def _sealed(
        self,
        stream_id: str,
        partition: int,
        scratch: PartitionLog,
        chunk: list[RecordIn],
        writer_epoch: int,
    ) -> list[SegmentEntry]:
        """The scratch log's records (and `chunk`) uploaded as segments; closes it."""
        try:
            if chunk:
                await scratch.append(chunk)
            await scratch.roll()
            return [
                await asyncio.to_thread(
                    self._tiering.put_segment, stream_id, partition, segment, writer_epoch
                )
                for segment in scratch.sealed_segments()
            ]
        finally:
            await scratch.close()

    def fill(
        self,
        stream_id: str,
        partition: int,
        tail: PendingTail,
        entries: tuple[SegmentEntry, ...],
        writer_epoch: int,
    ) -> Manifest:
        """The owner lists the recovered segments in place of the pending tail (blocking;
        Fenced if it no longer owns the manifest)."""
        manifest = self._manifests.update(
            stream_id, partition, writer_epoch, lambda m: m.filled(tail, entries)
        )
        log.info(
            "%s/%d: recovered the pending tail %d-%d (epoch %d): %d records",
            stream_id, partition, tail.base_offset, tail.end_offset, tail.lease_epoch,
            sum(e.records for e in entries),
        )  # fmt: skip
        return manifest

    def offer(
        self, stream_id: str, partition: int, tail: PendingTail, entries: tuple[SegmentEntry, ...]
    ) -> None:
        """A node that does not own the partition names the recovered segments for the
        owner to list (blocking)."""
        offer = {
            "format": layout.FORMAT_VERSION,
            "tail": {
                "base_offset": tail.base_offset,
                "end_offset": tail.end_offset,
                "lease_epoch": tail.lease_epoch,
            },
            "segments": [entry_json(e) for e in entries],
        }
        key = layout.tail_offer(stream_id, partition, tail.base_offset, tail.end_offset)
        self._manifests.store.put_bytes(key, orjson.dumps(offer))
        log.info("%s/%d: offered the tail %s to the partition's owner", stream_id, partition, tail)

    def offered(self, stream_id: str, partition: int, tail: PendingTail) -> bool:
        key = layout.tail_offer(stream_id, partition, tail.base_offset, tail.end_offset)
        return self._manifests.store.head(key) is not None

    def merge_offers(self, stream_id: str, partition: int, writer_epoch: int) -> Manifest | None:
        """The owner lists every tail offered for the partition and deletes the offers
        (blocking); the manifest if one was listed, else None."""
        manifest = None
        for info in list(self._manifests.store.list(layout.tails_prefix(stream_id, partition))):
            try:
                tail, entries = _parse_offer(self._manifests.store.get_bytes(info.key))
            except ObjectNotFound:
                continue
            except ManifestError as exc:
                log.error("%s: %s; left alone", info.key, exc)
                continue
            manifest = self.fill(stream_id, partition, tail, entries, writer_epoch)
            self._manifests.store.delete(info.key)
        return manifest


def _parse_offer(data: bytes) -> tuple[PendingTail, tuple[SegmentEntry, ...]]:
    try:
        raw: Any = orjson.loads(data)
        tail = raw["tail"]
        return (
            PendingTail(
                int(tail["base_offset"]), int(tail["end_offset"]), int(tail["lease_epoch"])
            ),
            tuple(entry_from_json(e) for e in raw["segments"]),
        )
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise ManifestError(f"malformed tail offer: {exc}") from exc


async def records_of(partition_log: PartitionLog, start: int, end: int) -> AsyncIterator[Record]:
    """The records of a local log from `start` to below `end`, in offset order."""
    offset = start
    while offset < end:
        batch = await partition_log.read(offset, _READ_RECORDS)
        for record in batch:
            if record.offset >= end:
                return
            yield record
        if not batch:
            return
        offset = batch[-1].offset + 1


def _record_in(record: Record) -> RecordIn:
    return RecordIn(
        message_id=record.message_id,
        timestamp_ms=record.timestamp_ms,
        body=record.body,
        key=record.key,
        group_id=record.group_id,
        dedup_id=record.dedup_id,
        delay_ms=record.delay_ms,
        attributes=record.attributes,
        system_attributes=record.system_attributes,
    )
