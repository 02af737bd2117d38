"""Membership: which storage nodes are alive, and where to reach them.

A node registers with a time to live and heartbeats well within it (a third of the TTL
is a sound period). Each registration is an entry in one sorted set, scored by the time
it expires, plus an entry in one info hash (see control_plane.redis_keys). Listing the live
nodes is one script that first drops every registration whose expiry has passed, so dead
nodes are pruned lazily by whoever looks, and no Redis TTL is involved: expiry is decided
by the injected clock, which tests move by hand.

Guarantees and limits:

- A node is live from its registration until its last heartbeat's expiry; at that instant
  it is dead, for `live_nodes` and for its own `heartbeat` alike. A heartbeat that comes
  too late answers False and removes what is left of the registration, so a node back
  from a long pause learns it was presumed dead (its leases may have moved) and must
  register again rather than silently reappear.
- Expiry is written from the heartbeating node's clock and judged by the reader's, so
  clock skew between hosts shortens or lengthens a registration by the skew. Clocks must
  agree to well within the TTL. Membership only informs assignment; it never decides who
  may write a partition: that is the lease's job (control_plane.leases).
- A node id names one running node. Registering an id that is already live replaces the
  registration (a restarted node need not wait for its old entry to expire).
- Deregistering does not release the node's leases; a node shutting down releases them
  first, then deregisters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from control_plane import redis_keys, timed_scripts
from control_plane.clock import Clock
from control_plane.cluster_scripts import (
    DEREGISTER_NODE,
    HEARTBEAT_NODE,
    LIST_LIVE_NODES,
    REGISTER_NODE,
)
from control_plane.errors import redis_boundary
from control_plane.redis_client import RedisClient
from control_plane.redis_values import as_text


@dataclass(frozen=True, slots=True)
class NodeInfo:
    """One node's registration, as of the moment it was read."""

    node_id: str
    address: str  # where gateways reach the node's internal API, e.g. "10.0.0.7:7001"
    registered_ms: int
    heartbeat_ms: int  # the last refresh (equal to registered_ms until the first heartbeat)
    expires_ms: int  # dead at this instant unless refreshed before it


Role = Literal["node", "gateway"]
_KEYS: dict[Role, list[str]] = {
    "node": [redis_keys.LIVE_NODES, redis_keys.NODE_INFO],
    "gateway": [redis_keys.LIVE_GATEWAYS, redis_keys.GATEWAY_INFO],
}


class Membership:
    """Registrations of storage nodes (or, with `role="gateway"`, of gateways, kept
    apart) in Redis; every change is one atomic script."""

    def __init__(self, redis: RedisClient, clock: Clock, role: Role = "node") -> None:
        self._redis = redis
        self._clock = clock
        self._keys = _KEYS[role]
        self._register = timed_scripts.register(redis, "register_node", REGISTER_NODE)
        self._heartbeat = timed_scripts.register(redis, "heartbeat_node", HEARTBEAT_NODE)
        self._deregister = timed_scripts.register(redis, "deregister_node", DEREGISTER_NODE)
        self._list = timed_scripts.register(redis, "list_live_nodes", LIST_LIVE_NODES)

    async def register(self, node_id: str, address: str, ttl_ms: int) -> NodeInfo:
        """Registers the node as live for `ttl_ms` from now, replacing any earlier entry."""
        _check_node_id(node_id)
        _check_ttl(ttl_ms)
        now_ms = self._clock.now_ms()
        with redis_boundary():
            await self._register(
                keys=self._keys,
                args=[node_id, address, now_ms, ttl_ms],
            )
        return NodeInfo(node_id, address, now_ms, now_ms, now_ms + ttl_ms)

    async def heartbeat(self, node_id: str, ttl_ms: int) -> bool:
        """Extends the registration to `ttl_ms` from now.

        False if the node has no live registration (it expired, was deregistered, or
        never was): nothing is extended, and the node must `register` again.
        """
        _check_ttl(ttl_ms)
        with redis_boundary():
            refreshed = await self._heartbeat(
                keys=self._keys,
                args=[node_id, self._clock.now_ms(), ttl_ms],
            )
        return int(refreshed) == 1

    async def deregister(self, node_id: str) -> bool:
        """Removes the registration at once; False if there was none."""
        with redis_boundary():
            removed = await self._deregister(keys=self._keys, args=[node_id])
        return int(removed) == 1

    async def live_nodes(self) -> list[NodeInfo]:
        """Every node live now, by id; expired registrations are dropped on the way."""
        with redis_boundary():
            flat = await self._list(keys=self._keys, args=[self._clock.now_ms()])
        nodes = []
        for i in range(0, len(flat), 3):
            registered, heartbeat, address = as_text(flat[i + 2]).split(":", 2)
            nodes.append(
                NodeInfo(
                    node_id=as_text(flat[i]),
                    address=address,
                    registered_ms=int(registered),
                    heartbeat_ms=int(heartbeat),
                    expires_ms=int(float(as_text(flat[i + 1]))),
                )
            )
        return sorted(nodes, key=lambda node: node.node_id)


def _check_node_id(node_id: str) -> None:
    if not node_id:
        raise ValueError("a node id must not be empty")


def _check_ttl(ttl_ms: int) -> None:
    if ttl_ms <= 0:
        raise ValueError(f"a time to live must be positive, not {ttl_ms} ms")
