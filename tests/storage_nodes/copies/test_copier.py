"""The owner's tail copier (storage_nodes/copies/copier.py) on its own: its object store
a local directory, its leases a table the test sets. What it must never do is leave an
append waiting for ever, or say NotOwner of an append its log already holds."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from storage_nodes.archive.local_store import LocalDirStore
from storage_nodes.copies import object_copies
from storage_nodes.copies.copier import TailCopier
from storage_nodes.node import NotOwner, RecordIn, StorageUnavailable

STREAM = "s1"


class Leases:
    """The owner's lease epochs, as its LeaseKeeper would answer them."""

    def __init__(self) -> None:
        self.epoch: int | None = 3

    def current_epoch(self, stream_id: str, partition: int) -> int:
        if self.epoch is None:
            raise NotOwner(f"{stream_id}/{partition}: the lease ran out")
        return self.epoch


def _records(*bodies: str) -> list[RecordIn]:
    return [RecordIn(f"m-{b}", 1_700_000_000_000, b.encode()) for b in bodies]


def _copier(
    tmp_path: Path, leases: Leases, archive: Callable[[str, int], Awaitable[None]]
) -> TailCopier:
    return TailCopier(
        "owner",
        LocalDirStore(tmp_path / "store"),
        leases,
        archive=archive,
        archived_end=lambda stream_id, partition: 0,
        weight=lambda stream_id, partition, node_id: 1,
        timeout_ms=1_000,
    )


async def test_a_follower_that_leaves_while_the_tail_is_archived_fails_no_append_for_ever(
    tmp_path: Path,
) -> None:
    copier: TailCopier

    async def archive(stream_id: str, partition: int) -> None:
        # The follower leaves the live nodes while the switch to it archives the tail.
        copier.set_live_nodes({"owner": "127.0.0.1:1"})
        await asyncio.sleep(0.01)

    copier = _copier(tmp_path, Leases(), archive)
    copier.set_live_nodes({"owner": "127.0.0.1:1"})  # alone: copies go to the store
    await copier.copy(STREAM, 0, 0, _records("a"), "replica")
    copier.set_live_nodes({"owner": "127.0.0.1:1", "b": "127.0.0.1:2"})
    # A switch to b, which is gone by the time it is asked: the copy goes to the store.
    await asyncio.wait_for(copier.copy(STREAM, 0, 1, _records("b"), "replica"), timeout=5)
    stored = object_copies.records(LocalDirStore(tmp_path / "store"), STREAM, 0, 3)
    assert [r.body for r in stored] == [b"a", b"b"]
    await copier.close()


async def test_an_append_whose_lease_ran_out_is_not_answered_not_owner(tmp_path: Path) -> None:
    async def archive(stream_id: str, partition: int) -> None:
        return None

    leases = Leases()
    copier = _copier(tmp_path, leases, archive)
    leases.epoch = None  # the lease ran out between the log's append and its copy
    with pytest.raises(StorageUnavailable, match="may or may not be delivered"):
        await copier.copy(STREAM, 0, 0, _records("a"), "object")
    await copier.close()
