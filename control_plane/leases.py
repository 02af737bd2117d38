"""Partition leases: which node may write a partition, with a fencing epoch.

A storage node writes a partition only while it holds that partition's lease. A lease has
a time to live, renewed by its holder well before it ends (a third of the TTL is a sound
period), and an **epoch**: a number per partition that rises each time the lease passes to
a node that was not holding it current, and never goes down, not when a lease expires
and not when it is released. The pair (node id, epoch) is the lease's token: `renew`,
`release` and `check` act only if the stored lease still carries it, so a node holding
an old `Lease` can never touch a newer tenure, even one of its own.

Each operation is one Lua script on the stream's lease hash (see control_plane.redis_keys).
The clock is passed in: a lease is current while its holder is set and now < expires_ms.

Why the epoch is needed, and what `check` does and does not promise. The TTL is 10 s:

    time (s)  node A                              node B                  lease of p0
    0         acquire -> epoch 7, until 10                                A, 7, until 10
    3         renew -> until 13                                           A, 7, until 13
    4         check -> True; starts a write
    5         GC pause begins ...
    13                                                                    (expired)
    14                                            acquire -> epoch 8      B, 8, until 24
    15                                            check -> True; writes
    17        ... pause ends; the write begun
              at 4 reaches the storage layer
    17        renew(epoch 7) -> None
    17        check(epoch 7) -> False: A stops writing p0 and drops it

After the pause A learns at once that it lost the partition: its renew and check fail,
and so does any later `acquire` attempt until B's lease ends (A then gets epoch 9, not 7).
But the write A had checked at 4 was already on its way at 17: no check can recall it.
That is what the epoch is for. Every durable record of a write (the tiering manifest,
DESIGN.md section 4) carries the writer's epoch, and a writer with a lower epoch than
the one recorded is refused, so A's late write at epoch 7 cannot overwrite B's at 8. A
`check` that returns True guarantees only that the lease was current at that instant.

Expiry is written from the holder's clock and judged by the caller's. If B's clock runs
d ms ahead of A's, A's lease ends d ms early from A's point of view, so a holder renews
with margin and stops writing before `expires_ms` by more than the clock skew.

A node id must name one running process (a restarted process should not reuse the id of
one that may still be alive): `acquire` by the same node id renews its current lease
under the same epoch, which is right for one process and wrong for two.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from control_plane import redis_keys, timed_scripts
from control_plane.clock import Clock
from control_plane.cluster_scripts import (
    ACQUIRE_LEASE,
    CHECK_LEASE,
    LEASE_HOLDER,
    RELEASE_LEASE,
    RENEW_LEASE,
)
from control_plane.errors import redis_boundary
from control_plane.redis_client import RedisClient
from control_plane.redis_values import as_text


@dataclass(frozen=True, slots=True)
class Lease:
    """One tenure of one partition by one node; (node_id, epoch) is its token."""

    stream_id: str
    partition: int
    node_id: str
    epoch: int  # the fencing epoch: stamp it on everything written under this lease
    expires_ms: int  # the lease ends at this instant unless renewed before it
    ttl_ms: int  # what a renewal extends it by


class Leases:
    """Partition leases in Redis; each operation is one atomic script."""

    def __init__(self, redis: RedisClient, clock: Clock) -> None:
        self._redis = redis
        self._clock = clock
        self._acquire = timed_scripts.register(redis, "acquire_lease", ACQUIRE_LEASE)
        self._renew = timed_scripts.register(redis, "renew_lease", RENEW_LEASE)
        self._release = timed_scripts.register(redis, "release_lease", RELEASE_LEASE)
        self._check = timed_scripts.register(redis, "check_lease", CHECK_LEASE)
        self._holder = timed_scripts.register(redis, "lease_holder", LEASE_HOLDER)

    async def acquire(
        self, stream_id: str, partition: int, node_id: str, ttl_ms: int
    ) -> Lease | None:
        """Takes the partition's lease for `ttl_ms` from now, or None if another node has it.

        Granted if the lease is free (never taken, released or expired) or current and
        held by this node. Held by this node, the epoch stays (a renewal); otherwise the
        epoch is one more than the partition's last, whoever held it.
        """
        if not node_id:
            raise ValueError("a node id must not be empty")
        _check_ttl(ttl_ms)
        with redis_boundary():
            granted = await self._acquire(
                keys=[redis_keys.partition_leases(stream_id)],
                args=[partition, node_id, self._clock.now_ms(), ttl_ms],
            )
        if granted is None:
            return None
        epoch, expires_ms = granted
        return Lease(stream_id, partition, node_id, int(epoch), int(expires_ms), ttl_ms)

    async def renew(self, lease: Lease) -> Lease | None:
        """Extends the lease by its `ttl_ms` from now, keeping its epoch.

        None if it is no longer current under this token (it expired, was released, or
        another node took over): the holder must stop writing at once. It may `acquire`
        again, which, if granted, starts a new tenure with a higher epoch.
        """
        with redis_boundary():
            expires_ms = await self._renew(
                keys=[redis_keys.partition_leases(lease.stream_id)],
                args=[
                    lease.partition,
                    lease.node_id,
                    lease.epoch,
                    self._clock.now_ms(),
                    lease.ttl_ms,
                ],
            )
        if expires_ms is None:
            return None
        return replace(lease, expires_ms=int(expires_ms))

    async def release(self, lease: Lease) -> bool:
        """Gives the partition up now, so another node need not wait for the TTL.

        True if the lease was current; False if it had expired or been taken over (a
        taken-over lease is left untouched). The epoch is kept either way.
        """
        with redis_boundary():
            released = await self._release(
                keys=[redis_keys.partition_leases(lease.stream_id)],
                args=[lease.partition, lease.node_id, lease.epoch, self._clock.now_ms()],
            )
        return int(released) == 1

    async def check(self, lease: Lease) -> bool:
        """True if the lease is current now: same holder, same epoch, not expired.

        A writer calls this before writing. True says nothing about later instants: see
        the module docstring for why writes also carry the epoch.
        """
        with redis_boundary():
            current = await self._check(
                keys=[redis_keys.partition_leases(lease.stream_id)],
                args=[lease.partition, lease.node_id, lease.epoch, self._clock.now_ms()],
            )
        return int(current) == 1

    async def holder(self, stream_id: str, partition: int) -> Lease | None:
        """The partition's current lease, or None if no node holds it now."""
        with redis_boundary():
            found = await self._holder(
                keys=[redis_keys.partition_leases(stream_id)],
                args=[partition, self._clock.now_ms()],
            )
        if found is None:
            return None
        node_id, epoch, expires_ms, ttl_ms = found
        return Lease(
            stream_id, partition, as_text(node_id), int(epoch), int(expires_ms), int(ttl_ms)
        )


def _check_ttl(ttl_ms: int) -> None:
    if ttl_ms <= 0:
        raise ValueError(f"a time to live must be positive, not {ttl_ms} ms")
