"""Storage nodes of a cluster as the tests build them: each with its own directory, all
with one archive (a local directory), as `tidemq node` has."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from control_plane.clock import ManualClock
from control_plane.leases import Leases
from control_plane.offset_reservations import OffsetReservations
from control_plane.plane import ControlPlane
from storage_nodes.copies.replica_store import ReplicaStore
from storage_nodes.local_node import LocalNode
from storage_nodes.takeover import Takeovers
from storage_nodes.wire.producer_sequences import ProducerSequences
from tidemq.cluster.hand_over import HandOvers
from tidemq.cluster.lease_keeper import LeaseKeeper
from tidemq.stack import ArchiveOptions, open_storage_node


class Monotonic:
    """A node's monotonic clock (seconds), moved by hand."""

    def __init__(self) -> None:
        self.now_s = 100.0

    def __call__(self) -> float:
        return self.now_s


@pytest.fixture
async def plane(redis_url: str) -> AsyncIterator[ControlPlane]:
    """The control plane on the test's Redis, its clock moved by hand."""
    control = await ControlPlane.connect(redis_url, ManualClock())
    yield control
    await control.close()


async def archived_node(plane: ControlPlane, node_dir: Path, archive_dir: Path) -> LocalNode:
    storage = await open_storage_node(
        plane, node_dir, archive=ArchiveOptions(url=f"file://{archive_dir}")
    )
    await storage.start(open_on_disk=False)
    return storage


def lease_keeper(
    plane: ControlPlane,
    storage: LocalNode,
    node_id: str,
    ttl_ms: int,
    node_dir: Path,
    *,
    replicas: ReplicaStore | None = None,
    **options: object,
) -> LeaseKeeper:
    """`replicas`: the node's copies as a follower, for its takeovers and its rounds."""
    return LeaseKeeper(
        Leases(plane.redis, plane.clock),
        storage,
        node_id,
        ttl_ms,
        next_writer_epoch=plane.next_writer_epoch,
        sequences=options.pop("sequences", None) or ProducerSequences(),  # type: ignore[arg-type]
        reservations=OffsetReservations(plane.redis, plane.clock),
        takeovers=Takeovers(storage, node_dir, replicas=replicas),
        replicas=replicas,
        **options,  # type: ignore[arg-type]
    )


def hand_overs(plane: ControlPlane, keeper: LeaseKeeper, storage: LocalNode) -> HandOvers:
    return HandOvers(
        keeper,
        storage,
        Leases(plane.redis, plane.clock),
        OffsetReservations(plane.redis, plane.clock),
    )
