"""The leases a storage node holds, and the fencing its node server applies with them.

A node takes a partition's lease when a gateway first sends it a request for the
partition and rendezvous hashing over the live nodes assigns the partition to it
(control_plane.assignment); it renews every lease it holds a third of the TTL apart.
Giving them up, to a node that joined or on shutdown, is hand_over.py's.

Fencing. A node judges its own lease expired from the time it last asked for it, on the
monotonic clock, before it asks Redis anything: a lease renewed by a request sent at t
is valid until t + TTL - margin. So a node stopped (SIGSTOP, a long GC or swap pause)
past its TTL refuses every request for the partition the instant it runs again, even
one that arrived while it was stopped, even before its renewal loop learns from Redis
that the lease has passed on. The margin covers the clock skew between this host and
the Redis clients of other hosts, which judge the lease by their own clocks. What no
check can stop is an append admitted just before the pause and written just after: the
epoch stamped on every archived segment (storage_nodes/archive/manifest.py) keeps such
a late writer from overwriting the new owner's archive.

Appends carry the lease epoch the gateway looked up; an append for another epoch than
the one held is refused too (NotOwner), as is any request for a partition being handed
over (`refuse`, `refuse_all`).

Offsets. A tenure acknowledges an append only once its offsets lie below the tenure's
reserved end in the control plane (control_plane/offset_reservations.py), raised ahead
of the appends in blocks: a Redis write per block. A block lasting under a second is
doubled, one lasting over ten halved (between MIN and MAX_BLOCK_OFFSETS), so a busy
partition costs about one write a second and an idle one leaves small gaps. A new
tenure starts after the last one's reservation (storage_nodes/takeover.py), so no offset
a failed node may have acknowledged is given again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from control_plane.assignment import assign
from control_plane.errors import ControlPlaneError
from control_plane.leases import Lease, Leases
from control_plane.offset_reservations import OffsetReservations
from storage_nodes.archive.manifest import PendingTail
from storage_nodes.archive.object_store import ObjectStoreError
from storage_nodes.copies.copier import TailCopier
from storage_nodes.copies.replica_store import ReplicaStore
from storage_nodes.local_node import LocalNode
from storage_nodes.node import NodeError, NotOwner, StorageUnavailable
from storage_nodes.takeover import Takeovers
from storage_nodes.wire.producer_sequences import ProducerSequences

log = logging.getLogger(__name__)

# The most a lease's validity is shortened by on this side, for clock skew.
_MAX_MARGIN_MS = 1_000
MIN_BLOCK_OFFSETS = 128
MAX_BLOCK_OFFSETS = 1 << 20
_BLOCK_SHORT_S = 1.0
_BLOCK_LONG_S = 10.0


@dataclass(slots=True)
class _Held:
    lease: Lease
    valid_until_s: float  # on the monotonic clock
    reserved_end: int = 0  # appends past it wait for the reservation to be raised
    block_offsets: int = MIN_BLOCK_OFFSETS
    extended_s: float = 0.0  # when the last block was reserved, on the monotonic clock
    extending: asyncio.Task[None] | None = None
    pending: tuple[PendingTail, ...] = ()  # tails of failed tenures still awaited


class LeaseKeeper:
    """Implements storage_nodes.wire.server.Ownership for one node. One event loop."""

    def __init__(
        self,
        leases: Leases,
        storage: LocalNode,
        node_id: str,
        ttl_ms: int,
        *,
        next_writer_epoch: Callable[[], Awaitable[int]],
        sequences: ProducerSequences,
        reservations: OffsetReservations,
        takeovers: Takeovers,
        monotonic_s: Callable[[], float] = time.monotonic,
        replicas: ReplicaStore | None = None,
    ) -> None:
        """`replicas`: the copies this node keeps as other owners' follower, offered or
        deleted on each round (`recover_tails`). The owner's side, `copies`, is set
        once made (it asks this object for the lease epochs)."""
        self.copies: TailCopier | None = None
        self._replicas = replicas
        self._leases = leases
        self._storage = storage
        self._reservations = reservations
        self._takeovers = takeovers
        self.node_id = node_id
        self._ttl_ms = ttl_ms
        self._margin_s = min(ttl_ms // 5, _MAX_MARGIN_MS) / 1000
        self._next_writer_epoch = next_writer_epoch
        self._sequences = sequences
        self._monotonic_s = monotonic_s
        self._held: dict[tuple[str, int], _Held] = {}
        # One lock per partition ever asked for: taking its lease and closing its log.
        self._taking: dict[tuple[str, int], asyncio.Lock] = {}
        self._live_ids: frozenset[str] = frozenset({node_id})
        self._closing = False
        self._closings: set[asyncio.Task[None]] = set()
        # Partitions being handed over to the node now assigned them: refused meanwhile.
        self._leaving: set[tuple[str, int]] = set()

    def set_live_nodes(self, node_ids: Iterable[str]) -> None:
        """The live nodes, as membership last listed them: whom partitions are assigned
        among. This node counts as live while it runs."""
        self._live_ids = frozenset(node_ids) | {self.node_id}

    @property
    def live_node_ids(self) -> frozenset[str]:
        return self._live_ids

    def held(self) -> list[Lease]:
        return [held.lease for _, held in sorted(self._held.items())]

    def lease_of(self, stream_id: str, partition: int) -> Lease | None:
        """The lease held of the partition, without judging it by the clock."""
        held = self._held.get((stream_id, partition))
        return None if held is None else held.lease

    def lock(self, stream_id: str, partition: int) -> asyncio.Lock:
        """The partition's lock, held while its lease is taken or its log closed."""
        return self._taking.setdefault((stream_id, partition), asyncio.Lock())

    @property
    def shutting_down(self) -> bool:
        return self._closing

    def refuse_all(self) -> None:
        """Shutdown: every request is refused (NotOwner) from now on."""
        self._closing = True

    def refuse(self, keys: Iterable[tuple[str, int]]) -> None:
        """Requests for these partitions are refused (NotOwner) until `serve_again`:
        they are being handed over."""
        self._leaving.update(keys)

    def serve_again(self, keys: Iterable[tuple[str, int]]) -> None:
        self._leaving.difference_update(keys)

    def leaving(self, stream_id: str, partition: int) -> bool:
        return (stream_id, partition) in self._leaving

    def current_epoch(self, stream_id: str, partition: int) -> int:
        """The lease epoch held of the partition, by this node's clock; NotOwner if
        none (the tail copies' fencing, storage_nodes/copies/copier.py)."""
        held = self._current((stream_id, partition))
        if held is None:
            raise NotOwner(f"node {self.node_id} no longer holds {stream_id}/{partition}")
        return held.lease.epoch

    async def admit(self, stream_id: str, partition: int, epoch: int, *, write: bool) -> None:
        key = (stream_id, partition)
        if self._closing:
            raise NotOwner(f"node {self.node_id} is shutting down and hands its partitions over")
        if key in self._leaving:
            raise NotOwner(f"node {self.node_id} hands {stream_id}/{partition} over")
        held = self._current(key)
        if held is None:
            if epoch:
                raise NotOwner(
                    f"node {self.node_id} does not hold the lease of {stream_id}/{partition} "
                    f"(epoch {epoch})"
                )
            held = await self._take(key)
        if epoch and epoch != held.lease.epoch:
            raise NotOwner(
                f"node {self.node_id} holds {stream_id}/{partition} at epoch "
                f"{held.lease.epoch}, not {epoch}"
            )

    def _current(self, key: tuple[str, int]) -> _Held | None:
        """The lease of `key` if this node still holds it by its own clock."""
        held = self._held.get(key)
        if held is not None and self._monotonic_s() >= held.valid_until_s:
            log.warning(
                "lease of %s/%d (epoch %d) ran out before it was renewed; this node stops "
                "serving the partition",
                key[0], key[1], held.lease.epoch,
            )  # fmt: skip
            self.forget(key)
            # The log is closed in the background: tiering must leave it alone now.
            closing = asyncio.get_running_loop().create_task(self._close_log(key))
            self._closings.add(closing)
            closing.add_done_callback(self._closings.discard)
            return None
        return held

    async def _take(self, key: tuple[str, int]) -> _Held:
        stream_id, partition = key
        owner = assign(stream_id, partition, self._live_ids)
        if owner != self.node_id:
            raise NotOwner(f"{stream_id}/{partition} is assigned to node {owner}")
        lock = self._taking.setdefault(key, asyncio.Lock())
        async with lock:
            held = self._current(key)
            if held is not None:
                return held
            asked_s = self._monotonic_s()
            try:
                lease = await self._leases.acquire(stream_id, partition, self.node_id, self._ttl_ms)
                if lease is None:
                    found = await self._leases.holder(stream_id, partition)
                    holder = f"node {found.node_id}" if found else "another node"
                    raise NotOwner(f"{stream_id}/{partition} is leased to {holder}")
                held = await self._begin(lease, asked_s)
            except ControlPlaneError as exc:
                raise StorageUnavailable(
                    f"cannot take the lease of {stream_id}/{partition}: {exc}"
                ) from exc
            self._held[key] = held
            log.info(
                "took the lease of %s/%d at epoch %d, from offset %d",
                stream_id, partition, lease.epoch, held.reserved_end,
            )  # fmt: skip
        return held

    async def _begin(self, lease: Lease, asked_s: float) -> _Held:
        """The new tenure's log, after the last tenure's reservation (ControlPlaneError)."""
        stream_id, partition = lease.stream_id, lease.partition
        reserved = await self._reservations.current(stream_id, partition)
        if reserved.lease_epoch >= lease.epoch:
            # This node id's own tenure, from before a restart (a fixed TIDEMQ_NODE_ID):
            # its log may hold offsets past the reservation. Start a new tenure instead.
            await self._leases.release(lease)
            raise NotOwner(f"{stream_id}/{partition}: a tenure of this node id is still current")
        taken = await self._takeovers.take_over(
            stream_id,
            partition,
            node_id=self.node_id,
            writer_epoch=await self._next_writer_epoch(),
            lease_epoch=lease.epoch,
            reserved_epoch=reserved.lease_epoch,
            reserved_end=reserved.end_offset,
        )
        begun = await self._reservations.begin(
            stream_id,
            partition,
            self.node_id,
            lease.epoch,
            expected=reserved,
            start_offset=taken.start_offset,
        )
        if not begun:
            # The lease ran out meanwhile, or a newer tenure reserved: not ours.
            await self._storage.hand_over(stream_id, partition, archive=False)
            raise NotOwner(f"{stream_id}/{partition} changed hands while it was taken over")
        return _Held(
            lease,
            asked_s + self._valid_s(),
            reserved_end=taken.start_offset,
            extended_s=self._monotonic_s(),
            pending=taken.pending,
        )

    async def covered(self, stream_id: str, partition: int, end_offset: int) -> None:
        """Returns once offsets below `end_offset` are reserved by this tenure, raising
        the reservation a block ahead when the appends come near it; NotOwner if it
        cannot be raised (the lease is lost: the append must not be acknowledged)."""
        key = (stream_id, partition)
        held = self._held.get(key)
        if held is None:
            raise NotOwner(f"node {self.node_id} no longer holds {stream_id}/{partition}")
        if end_offset + held.block_offsets // 2 > held.reserved_end and held.extending is None:
            held.extending = asyncio.get_running_loop().create_task(self._extend(held, end_offset))
        while end_offset > held.reserved_end:
            extending = held.extending
            if extending is None:
                extending = held.extending = asyncio.get_running_loop().create_task(
                    self._extend(held, end_offset)
                )
            await asyncio.shield(extending)
            if self._held.get(key) is not held:
                raise NotOwner(f"node {self.node_id} lost {stream_id}/{partition}")

    async def _extend(self, held: _Held, end_offset: int) -> None:
        lease = held.lease
        now_s = self._monotonic_s()
        lasted_s = now_s - held.extended_s
        if lasted_s < _BLOCK_SHORT_S:
            held.block_offsets = min(held.block_offsets * 2, MAX_BLOCK_OFFSETS)
        elif lasted_s > _BLOCK_LONG_S:
            held.block_offsets = max(held.block_offsets // 2, MIN_BLOCK_OFFSETS)
        target = max(end_offset, held.reserved_end) + held.block_offsets
        try:
            extended = await self._reservations.extend(
                lease.stream_id, lease.partition, self.node_id, lease.epoch, target
            )
        except ControlPlaneError as exc:
            log.warning(
                "cannot reserve offsets of %s/%d: %s", lease.stream_id, lease.partition, exc
            )
            extended = False
        finally:
            held.extending = None
        key = (lease.stream_id, lease.partition)
        if not extended:
            if self._held.get(key) is held:
                log.warning(
                    "%s/%d: the reservation cannot be raised (lease lost?); giving it up",
                    lease.stream_id, lease.partition,
                )  # fmt: skip
                self.forget(key)
                await self._close_log(key)
            return
        held.reserved_end = max(held.reserved_end, target)
        held.extended_s = now_s

    def _valid_s(self) -> float:
        return self._ttl_ms / 1000 - self._margin_s

    async def renew_all(self) -> None:
        """Renews every lease held; one found lost is given up at once."""
        for key, held in list(self._held.items()):
            if self._current(key) is None:
                continue
            asked_s = self._monotonic_s()
            try:
                renewed = await self._leases.renew(held.lease)
            except ControlPlaneError as exc:
                log.warning("cannot renew the lease of %s/%d: %s", key[0], key[1], exc)
                continue  # valid by this node's clock until it runs out
            if self._held.get(key) is not held:
                continue
            if renewed is None:
                log.warning("lost the lease of %s/%d (epoch %d)", key[0], key[1], held.lease.epoch)
                self.forget(key)
                await self._close_log(key)
            else:
                held.lease, held.valid_until_s = renewed, asked_s + self._valid_s()

    async def recover_tails(self) -> None:
        """Offers the tails of logs left on this disk that this node no longer owns, and
        lists the tails offered for partitions it owns; called a third of the TTL apart."""
        for key in self._takeovers.leftovers():
            async with self._taking.setdefault(key, asyncio.Lock()):
                if key in self._held:
                    continue
                try:
                    reserved = await self._reservations.current(*key)
                    await self._takeovers.offer_leftover(*key, reserved.lease_epoch)
                except (ControlPlaneError, ObjectStoreError) as exc:
                    log.warning("offering the tail of %s/%d: %s", key[0], key[1], exc)
        for key, held in list(self._held.items()):
            if not held.pending:
                continue
            try:
                held.pending = await self._takeovers.merge_offers(*key)
            except ObjectStoreError as exc:
                log.warning("listing the tails offered for %s/%d: %s", key[0], key[1], exc)
        await self._tend_copies()

    async def _tend_copies(self) -> None:
        """The copies' round: the owner's (storage_nodes/copies/copier.py), then the
        follower's, whose copies of a tenure it has not heard from for a TTL are
        offered to the partition's owner, or deleted once nothing awaits them."""
        if self.copies is not None:
            try:
                await self.copies.tend()
            except (NodeError, ObjectStoreError) as exc:
                log.warning("tail copies: %s", exc)
        if self._replicas is None:
            return
        quiet_since_s = self._monotonic_s() - self._ttl_ms / 1000
        for tenure, written_s in self._replicas.tenures():
            if written_s > quiet_since_s:
                continue
            key = tenure[:2]
            async with self._taking.setdefault(key, asyncio.Lock()):
                try:
                    reserved = await self._reservations.current(*key)
                    await self._takeovers.offer_replica(tenure, reserved.lease_epoch)
                except (ControlPlaneError, ObjectStoreError) as exc:
                    log.warning("offering the copies of %s/%d: %s", key[0], key[1], exc)

    def forget(self, key: tuple[str, int]) -> None:
        """The partition is no longer served here: its tenure's state is dropped."""
        self._held.pop(key, None)
        self._sequences.forget(*key)

    async def _close_log(self, key: tuple[str, int]) -> None:
        # Under the partition's lock, so that it never closes a log being taken again.
        async with self._taking.setdefault(key, asyncio.Lock()):
            if key in self._held:
                return  # taken again meanwhile
            if self.copies is not None:
                # The lease is lost: its copies stay for the next owner.
                await self.copies.ended(*key, archived=False)
            try:
                await self._storage.hand_over(*key, archive=False)
            except NodeError as exc:
                log.warning("closing %s/%d: %s", key[0], key[1], exc)
