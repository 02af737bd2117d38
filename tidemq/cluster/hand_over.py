"""Handing a storage node's partitions over: to the node that a rebalance now assigns
them (`rebalance`), or all of them on shutdown (`hand_over_all`), so that the next owner
takes each at once and finds every acknowledged append in the archive.

Rebalancing. When a node joins, rendezvous hashing names it the owner of about 1/n of
the partitions; the nodes holding those hand them over, the way a node shutting down
hands over all of its own, and only those move:

    t0  membership lists the new node; the holder's assignment now names it
    t1  the holder refuses new requests for the partition (NotOwner), still renewing
        its lease, and waits for the requests it admitted before t1 to be answered
    t2  it seals the active segment, uploads what the archive lacks, closes the log
    t3  it releases the lease; a gateway's next request (refused at t1..t3, retried with
        a fresh route) reaches the new node, which takes the lease and starts its log at
        the archive's end: every acknowledged append is there

If the archive cannot take the tail at t2, the holder keeps the partition (its log
reopens on the next request) and tries again at a later tick: nothing moves that
would leave acknowledged records behind.

The leases and the refusals are the LeaseKeeper's (lease_keeper.py); this module only
drives them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from control_plane.assignment import assign
from control_plane.errors import ControlPlaneError
from control_plane.leases import Leases
from control_plane.offset_reservations import OffsetReservations
from storage_nodes.local_node import LocalNode
from storage_nodes.node import NodeError
from tidemq.cluster.lease_keeper import LeaseKeeper

log = logging.getLogger(__name__)


class HandOvers:
    """The hand-overs of one node's partitions, as its LeaseKeeper holds them. One
    event loop."""

    def __init__(
        self,
        keeper: LeaseKeeper,
        storage: LocalNode,
        leases: Leases,
        reservations: OffsetReservations,
    ) -> None:
        self._keeper = keeper
        self._storage = storage
        self._leases = leases
        self._reservations = reservations
        self._rebalancing: asyncio.Task[None] | None = None

    def start_rebalance(self, settled: Callable[[], Awaitable[None]]) -> None:
        """Hands over, in the background, the partitions held that the assignment over
        the live nodes now gives another node (see the module's docstring); `settled`
        waits for the requests in progress. One rebalance at a time."""
        busy = self._rebalancing is not None and not self._rebalancing.done()
        if self._keeper.shutting_down or busy:
            return
        if not self.misplaced():
            return
        self._rebalancing = asyncio.get_running_loop().create_task(
            self._rebalance_logged(settled), name="rebalance"
        )

    async def _rebalance_logged(self, settled: Callable[[], Awaitable[None]]) -> None:
        try:
            await self.rebalance(settled)
        except Exception:
            # A fault of ours: the partitions stay here, and the next tick tries again.
            log.exception("rebalance failed")

    def misplaced(self) -> list[tuple[str, int]]:
        """The partitions held that the assignment gives another live node."""
        keeper = self._keeper
        return [
            (lease.stream_id, lease.partition)
            for lease in keeper.held()
            if not keeper.leaving(lease.stream_id, lease.partition)
            and assign(lease.stream_id, lease.partition, keeper.live_node_ids) != keeper.node_id
        ]

    async def rebalance(self, settled: Callable[[], Awaitable[None]]) -> None:
        """Hands the misplaced partitions over: refused from now on, then, once the
        requests admitted before are answered, archived and released."""
        moving = self.misplaced()
        if not moving:
            return
        self._keeper.refuse(moving)
        try:
            await settled()
            for key in moving:
                await self._hand_over(key)
        finally:
            self._keeper.serve_again(moving)

    async def _hand_over(self, key: tuple[str, int]) -> None:
        async with self._keeper.lock(*key):
            lease = self._keeper.lease_of(*key)
            if lease is None:
                return  # lost meanwhile: closed by whoever noticed
            try:
                end_offset = await self._storage.end_offset(*key)
                await self._storage.hand_over(*key, archive=True)
            except NodeError as exc:
                log.warning(
                    "rebalance: keeping %s/%d, its tail cannot be archived now: %s", *key, exc
                )
                return
            self._keeper.forget(key)
            if self._keeper.copies is not None:
                await self._keeper.copies.ended(*key, archived=True)
        try:
            # Everything is archived: the next tenure starts right after, no gap.
            await self._reservations.trim(
                key[0], key[1], self._keeper.node_id, lease.epoch, end_offset
            )
        except ControlPlaneError as exc:
            log.warning("cannot trim the reservation of %s/%d: %s", key[0], key[1], exc)
        try:
            await self._leases.release(lease)
        except ControlPlaneError as exc:
            # It runs out within the TTL; no request is served here meanwhile.
            log.warning("cannot release the lease of %s/%d: %s", key[0], key[1], exc)
        log.info(
            "rebalance: handed %s/%d over to node %s (epoch %d)",
            key[0], key[1], assign(*key, self._keeper.live_node_ids), lease.epoch,
        )  # fmt: skip

    async def hand_over_all(self, drained: Callable[[], Awaitable[None]]) -> None:
        """Shutdown: refuses every request from now on, waits (`drained`) for those in
        progress, archives each partition's tail and releases its lease, so another node
        takes it over at once with nothing left behind."""
        self._keeper.refuse_all()
        if self._rebalancing is not None:
            await asyncio.gather(self._rebalancing, return_exceptions=True)
        await drained()
        for lease in self._keeper.held():
            key = (lease.stream_id, lease.partition)
            self._keeper.forget(key)
            try:
                end_offset = await self._storage.end_offset(*key)
                await self._storage.hand_over(*key, archive=True)
                if self._keeper.copies is not None:
                    await self._keeper.copies.ended(*key, archived=True)
                # Everything is archived: the next tenure starts right after, no gap.
                await self._reservations.trim(
                    key[0], key[1], self._keeper.node_id, lease.epoch, end_offset
                )
            except NodeError as exc:
                log.error("hand-over of %s/%d: %s; its tail stays on this disk", *key, exc)
            except ControlPlaneError as exc:
                log.warning("cannot trim the reservation of %s/%d: %s", key[0], key[1], exc)
            try:
                await self._leases.release(lease)
            except ControlPlaneError as exc:
                log.warning("cannot release the lease of %s/%d: %s", key[0], key[1], exc)
            log.info("handed %s/%d over (epoch %d)", key[0], key[1], lease.epoch)
