"""The Node of a gateway with no storage: each partition's work goes to its lease holder.

Routing. A partition's route is its lease holder and epoch (control_plane.leases), or,
while no live node holds it, the node rendezvous hashing assigns it to over the live
nodes (control_plane.assignment) with epoch 0, which that node answers by taking the
lease. Routes and the live-node list are cached, and looked up again when a node says
"not the owner" (NotOwner) or cannot be reached, with a short back-off, until
`timeout_ms` has gone by; then the last error is raised (the core answers 503).

Appends are named by this gateway's producer id and a sequence (storage_nodes/wire/
producer_sequences.py). Retrying is safe where the append certainly was not written: the
node refused it (NotOwner) or no connection was made. Where it may have been written (the
connection broke, or no answer came in time), it is repeated under the same name on the
same node and epoch only, the one place its fate is known; if that node no longer owns
the partition, or no longer takes connections (its process, and its memory of the
append, are gone), the append fails with StorageUnavailable rather than risk a second
copy.

Appends to one partition are coalesced (append_batches.py): while one is out, the next
wait and go together as one request, under one sequence, so the rules above apply to the
request as a whole.

Partitions down (partition_health.py). A partition whose request found no node to answer
for it (unreachable, silent, or refusing after a fresh look-up) is marked down for a
moment, as is every partition routed to a node that refused a connection, and so is one
with a request unanswered for over a second. `partitions_down` names them; a request
made with `wait=False` raises PartitionDown for them at once, and for any other whose
first two attempts (the second on a fresh route, with no back-off) certainly did nothing:
a standard queue's send then goes to another partition. An append that may have been
written is waited for whatever `wait` says, and one still queued behind it (not sent)
after a second is withdrawn with PartitionDown.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from control_plane.assignment import assign
from control_plane.errors import ControlPlaneError
from control_plane.leases import Leases
from control_plane.membership import Membership, NodeInfo
from control_plane.plane import ControlPlane
from storage_nodes.archive.tiering import TieringStatus
from storage_nodes.node import (
    Absence,
    NodeError,
    NodeUnreachable,
    NotOwner,
    PartitionDown,
    Record,
    RecordIn,
    Replication,
    StorageUnavailable,
    StreamDescriptor,
)
from storage_nodes.wire.client import NodeClient
from tidemq.cluster.append_batches import AppendBatches, NotSent
from tidemq.cluster.partition_health import DEFAULT_DOWN_FOR_S, PartitionHealth

log = logging.getLogger(__name__)

T = TypeVar("T")
_RETRY_MIN_S = 0.02
_RETRY_MAX_S = 0.5
# The live-node list is read again at least this often, failures or not.
_NODES_MAX_AGE_S = 2.0


@dataclass(frozen=True, slots=True)
class Route:
    node_id: str
    address: str
    epoch: int  # 0: no live node holds the lease; the assigned node takes it


class RoutingNode:
    """Implements storage_nodes.node.Node over the cluster's nodes. One event loop."""

    def __init__(self, control: ControlPlane, *, timeout_ms: int, attempt_timeout_ms: int) -> None:
        """`timeout_ms`: how long a request is tried in all; `attempt_timeout_ms`: how long
        one node is waited for (the lease TTL: a node silent that long is replaced)."""
        self._leases = Leases(control.redis, control.clock)
        self._membership = Membership(control.redis, control.clock)
        self._timeout_s = timeout_ms / 1000
        self._attempt_timeout_ms = min(attempt_timeout_ms, timeout_ms)
        self.producer_id = uuid.uuid4().hex
        self._sequences = itertools.count(1)
        self._clients: dict[str, NodeClient] = {}
        self._routes: dict[tuple[str, int], Route] = {}
        self._nodes: dict[str, NodeInfo] = {}
        self._nodes_read_s = float("-inf")
        self._problem: str | None = None
        self._appends = AppendBatches[tuple[str, int, Replication, bool]](self._append_now)
        self._health = PartitionHealth[tuple[str, int]]()
        # Addresses that refused a connection (no process there), until when: every
        # partition routed there is down meanwhile, not only those that tried.
        self._refused_until_s: dict[str, float] = {}

    # -- Node ----------------------------------------------------------------------------

    async def create_stream(self, descriptor: StreamDescriptor) -> None:
        for partition in range(descriptor.partitions):
            await self._call(
                descriptor.stream_id,
                partition,
                lambda client, epoch: client.create_stream(descriptor),
            )

    async def append(
        self,
        stream_id: str,
        partition: int,
        records: Sequence[RecordIn],
        *,
        replication: Replication = "none",
        wait: bool = True,
    ) -> int:
        # The mode and `wait` are part of the key: appends are coalesced only with others
        # of the same, so a request as a whole waits or gives up.
        key = (stream_id, partition, replication, wait)
        if wait:
            return await self._appends.append(key, records)
        self._raise_if_down((stream_id, partition))
        try:
            return await self._appends.append(key, records, patience_s=self._health.unanswered_s)
        except NotSent as exc:
            raise PartitionDown(f"{stream_id}/{partition}: a request to it is unanswered") from exc

    async def _append_now(
        self, key: tuple[str, int, Replication, bool], records: Sequence[RecordIn]
    ) -> int:
        """One request: the records of the appends coalesced, under one sequence."""
        stream_id, partition, replication, wait = key
        if not wait:
            self._raise_if_down((stream_id, partition))  # as it became while they waited
        sequence = next(self._sequences)

        async def send(client: NodeClient, epoch: int) -> int:
            return await client.append(
                stream_id,
                partition,
                records,
                epoch=epoch,
                producer_id=self.producer_id,
                sequence=sequence,
                replication=replication,
            )

        return await self._call(stream_id, partition, send, repeat_on_same_node=True, wait=wait)

    async def read_offsets(
        self, stream_id: str, partition: int, offsets: Sequence[int], *, wait: bool = True
    ) -> dict[int, Record]:
        return await self._read(
            stream_id,
            partition,
            lambda client, epoch: client.read_offsets(stream_id, partition, offsets, epoch=epoch),
            wait=wait,
        )

    async def absent(self, stream_id: str, partition: int, offsets: Sequence[int]) -> Absence:
        return await self._call(
            stream_id,
            partition,
            lambda client, epoch: client.absent(stream_id, partition, offsets, epoch=epoch),
        )

    async def end_offset(self, stream_id: str, partition: int, *, wait: bool = True) -> int:
        return await self._read(
            stream_id,
            partition,
            lambda client, epoch: client.end_offset(stream_id, partition, epoch=epoch),
            wait=wait,
        )

    def partitions_down(self, stream_id: str, partitions: int) -> frozenset[int]:
        return frozenset(p for p in range(partitions) if self._is_down((stream_id, p)))

    async def offset_for_time(self, stream_id: str, partition: int, timestamp_ms: int) -> int:
        return await self._call(
            stream_id,
            partition,
            lambda client, epoch: client.offset_for_time(
                stream_id, partition, timestamp_ms, epoch=epoch
            ),
        )

    async def tiering_status(self, stream_id: str, partition: int) -> TieringStatus | None:
        return await self._call(
            stream_id,
            partition,
            lambda client, epoch: client.tiering_status(stream_id, partition, epoch=epoch),
        )

    async def drop_stream(self, stream_id: str) -> None:
        """Drops the stream on every live node: any of them may hold some of it."""
        nodes = await self._live_nodes(refresh=True)
        results = await asyncio.gather(
            *(self._client(node.address).drop_stream(stream_id) for node in nodes.values()),
            return_exceptions=True,
        )
        for node, result in zip(nodes.values(), results, strict=True):
            if isinstance(result, NodeError):
                log.warning("dropping %s on node %s: %s", stream_id, node.node_id, result)
            elif isinstance(result, BaseException):
                raise result
        for key in [key for key in self._routes if key[0] == stream_id]:
            del self._routes[key]
        self._health.forget(lambda key: key[0] == stream_id)

    def problem(self) -> str | None:
        return self._problem

    async def close(self) -> None:
        await self._appends.close()
        clients, self._clients = self._clients, {}
        for client in clients.values():
            await client.close()

    # -- routing -------------------------------------------------------------------------

    async def _read(
        self,
        stream_id: str,
        partition: int,
        request: Callable[[NodeClient, int], Awaitable[T]],
        *,
        wait: bool,
    ) -> T:
        """A request with no effect: with `wait` False, one unanswered past a second is
        given up (and its partition marked down) rather than waited for."""
        if wait:
            return await self._call(stream_id, partition, request)
        self._raise_if_down((stream_id, partition))
        try:
            return await asyncio.wait_for(
                self._call(stream_id, partition, request, wait=False), self._health.unanswered_s
            )
        except TimeoutError as exc:
            self._health.mark_down((stream_id, partition))
            raise PartitionDown(f"{stream_id}/{partition}: its node does not answer") from exc

    async def _call(
        self,
        stream_id: str,
        partition: int,
        request: Callable[[NodeClient, int], Awaitable[T]],
        *,
        repeat_on_same_node: bool = False,
        wait: bool = True,
    ) -> T:
        """The request on the partition's route, retried by the rules above; `wait`
        False: PartitionDown on the second failure that certainly did nothing."""
        key = (stream_id, partition)
        deadline_s = time.monotonic() + self._timeout_s
        pinned: Route | None = None  # where an append may have been written
        for attempt in itertools.count():
            token = self._health.sent(key)
            address: str | None = None
            try:
                route = pinned or await self._route(key, refresh=attempt > 0)
                address = route.address
                result = await request(self._client(address), route.epoch)
            except NotOwner as exc:
                # Refused even on a route just looked up: no live node serves it now.
                self._health.failed(key, token, down=attempt > 0)
                if pinned is not None:
                    raise StorageUnavailable(
                        f"node {pinned.node_id} lost {stream_id}/{partition} while an append "
                        "to it was unanswered: it may or may not have been appended"
                    ) from exc
                error: Exception = exc
            except NodeUnreachable as exc:
                self._unreachable(key, token, address, sent=exc.sent)
                if pinned is not None and not exc.sent:
                    # No process listens there any more: what it remembered of the
                    # append is gone with it, and the appends behind this one wait.
                    raise StorageUnavailable(
                        f"node {pinned.node_id} went away while an append to "
                        f"{stream_id}/{partition} was unanswered: it may or may not have "
                        "been appended"
                    ) from exc
                if exc.sent and repeat_on_same_node:
                    pinned = pinned or route
                error = exc
            except ControlPlaneError as exc:
                self._health.failed(key, token, down=False)
                error = StorageUnavailable(f"cannot look up {stream_id}/{partition}: {exc}")
            except BaseException:
                self._health.failed(key, token, down=False)
                raise
            else:
                self._answered(key, token, address)
                return result
            self._routes.pop(key, None)
            # Certainly not carried out (an append that may have been is pinned): given
            # up at once, after one more try on a route looked up afresh.
            if not wait and pinned is None and isinstance(error, NotOwner | NodeUnreachable):
                if attempt > 0:
                    raise PartitionDown(f"{stream_id}/{partition}: {error}") from error
                continue
            if time.monotonic() >= deadline_s:
                raise error
            log.debug("%s/%d: %s; trying again", stream_id, partition, error)
            await asyncio.sleep(min(_RETRY_MIN_S * 2**attempt, _RETRY_MAX_S))
        raise AssertionError("unreachable")

    def _unreachable(
        self, key: tuple[str, int], token: int, address: str | None, *, sent: bool
    ) -> None:
        self._health.failed(key, token, down=True)
        if not sent and address is not None:  # no process there: its other partitions too
            self._refused_until_s[address] = time.monotonic() + DEFAULT_DOWN_FOR_S

    def _answered(self, key: tuple[str, int], token: int, address: str | None) -> None:
        self._health.answered(key, token)
        if address is not None:
            self._refused_until_s.pop(address, None)
        self._problem = None

    def _is_down(self, key: tuple[str, int]) -> bool:
        if self._health.is_down(key):
            return True
        route = self._routes.get(key)
        if route is None:
            return False
        refused_until_s = self._refused_until_s.get(route.address)
        if refused_until_s is None:
            return False
        if refused_until_s > time.monotonic():
            return True
        del self._refused_until_s[route.address]
        return False

    def _raise_if_down(self, key: tuple[str, int]) -> None:
        if self._is_down(key):
            stream_id, partition = key
            raise PartitionDown(f"{stream_id}/{partition} has no node answering for it now")

    async def _route(self, key: tuple[str, int], *, refresh: bool) -> Route:
        cached = self._routes.get(key)
        if cached is not None:
            return cached
        stream_id, partition = key
        lease = await self._leases.holder(stream_id, partition)
        nodes = await self._live_nodes(refresh=refresh)
        if lease is not None and lease.node_id in nodes:
            route = Route(lease.node_id, nodes[lease.node_id].address, lease.epoch)
        else:
            if not nodes:
                self._problem = "no storage node is live"
                raise StorageUnavailable("no storage node is live; start one with `tidemq node`")
            owner = assign(stream_id, partition, nodes)
            route = Route(owner, nodes[owner].address, 0)
        self._routes[key] = route
        return route

    async def _live_nodes(self, *, refresh: bool) -> dict[str, NodeInfo]:
        now_s = time.monotonic()
        if refresh or now_s - self._nodes_read_s > _NODES_MAX_AGE_S:
            self._nodes = {node.node_id: node for node in await self._membership.live_nodes()}
            self._nodes_read_s = now_s
        return self._nodes

    def _client(self, address: str) -> NodeClient:
        client = self._clients.get(address)
        if client is None:
            client = self._clients[address] = NodeClient(
                address, timeout_ms=self._attempt_timeout_ms, producer_id=self.producer_id
            )
        return client
