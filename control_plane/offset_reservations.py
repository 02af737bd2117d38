"""Offset reservations: the offsets a partition's lease holder may give to records.

A holder acknowledges an append only once its offsets lie below the partition's
*reserved end*, which it raises in blocks (`extend`) before it gets there: a Redis write
per block, not per append. A new holder (`begin`) starts its log at the last holder's
reserved end, never below it, so no offset a failed holder may have acknowledged is ever
given again; the offsets between the archive's end and that reserved end are the failed
holder's *pending tail* (storage_nodes/archive/manifest.py), unavailable until found.

Stored beside the leases, in the same hash (control_plane.redis_keys.partition_leases),
so that the scripts can judge the lease and the reservation in one step and the stream's
deletion drops both: field "reserved:<partition>" -> "<lease epoch>:<reserved end>".

Why `extend` checks the lease too, as a timeline (TTL 10 s, blocks of 1000):

    time (s)  node A (epoch 7)                node B                 reserved
    0         begin at 0                                             7:0
    1         extend to 1000; appends 0..990                         7:1000
    5         pause ...
    15                                        acquire -> epoch 8
    15                                        begin at 1000          8:1000
    16        ... extend(7) to 2000 -> False                         8:1000

A's extension is refused, so A cannot acknowledge offset 1000 or beyond, which B now
gives. It would be refused at 12 too (A's lease expired, nobody holds it yet): a holder
extends only while its lease is current.
"""

from __future__ import annotations

from dataclasses import dataclass

from control_plane import redis_keys, timed_scripts
from control_plane.clock import Clock
from control_plane.errors import redis_boundary
from control_plane.redis_client import RedisClient
from control_plane.redis_values import as_text

# Shared: the lease field's "<epoch>:<expires ms>:<ttl ms>:<node id>" (leases.py).
_PRELUDE = r"""
local function lease_is(key, partition, node, epoch, now)
  local lease = redis.call('HGET', key, partition)
  if not lease then return false end
  local e, expires, _, holder = string.match(lease, '^(%d+):(%d+):(%d+):(.*)$')
  return tonumber(e) == epoch and holder == node and tonumber(expires) > now
end
local function reserved(key, partition)
  local found = redis.call('HGET', key, 'reserved:' .. partition)
  if not found then return 0, 0 end
  local e, r = string.match(found, '^(%d+):(%d+)$')
  return tonumber(e), tonumber(r)
end
"""

BEGIN = (
    _PRELUDE
    + """
-- KEYS[1] the stream's leases hash
-- ARGV[1] partition, ARGV[2] node id, ARGV[3] lease epoch, ARGV[4] now ms,
-- ARGV[5] expected reservation "<epoch>:<end>" ("0:0" for none), ARGV[6] start offset
-- returns 1 if the tenure now reserves [start, start): the caller holds the lease at the
-- epoch, the reservation is still the expected one, and the start is not below its end;
-- 0 otherwise (nothing changed)
local epoch = tonumber(ARGV[3])
if not lease_is(KEYS[1], ARGV[1], ARGV[2], epoch, tonumber(ARGV[4])) then return 0 end
local e, r = reserved(KEYS[1], ARGV[1])
if string.format('%d:%d', e, r) ~= ARGV[5] or e >= epoch or tonumber(ARGV[6]) < r then
  return 0
end
redis.call('HSET', KEYS[1], 'reserved:' .. ARGV[1], string.format('%d:%d', epoch, ARGV[6]))
return 1
"""
)

EXTEND = (
    _PRELUDE
    + """
-- KEYS[1] the stream's leases hash
-- ARGV[1] partition, ARGV[2] node id, ARGV[3] lease epoch, ARGV[4] now ms, ARGV[5] end
-- returns 1 if the reserved end is at least ARGV[5] now (raised if it was below); 0 if
-- the caller's lease is not current or another tenure reserved since (nothing changed)
local epoch = tonumber(ARGV[3])
if not lease_is(KEYS[1], ARGV[1], ARGV[2], epoch, tonumber(ARGV[4])) then return 0 end
local e, r = reserved(KEYS[1], ARGV[1])
if e ~= epoch then return 0 end
if tonumber(ARGV[5]) > r then
  redis.call('HSET', KEYS[1], 'reserved:' .. ARGV[1], string.format('%d:%d', epoch, ARGV[5]))
end
return 1
"""
)

TRIM = (
    _PRELUDE
    + """
-- KEYS[1] the stream's leases hash
-- ARGV[1] partition, ARGV[2] node id, ARGV[3] lease epoch, ARGV[4] now ms, ARGV[5] end
-- returns 1 if the reserved end was lowered to ARGV[5] (a holder handing over, whose
-- log ends there and is archived: the next one starts right after, with no pending
-- tail); 0 if the lease is not current or the reservation is another tenure's
local epoch = tonumber(ARGV[3])
if not lease_is(KEYS[1], ARGV[1], ARGV[2], epoch, tonumber(ARGV[4])) then return 0 end
local e, r = reserved(KEYS[1], ARGV[1])
if e ~= epoch or tonumber(ARGV[5]) > r then return 0 end
redis.call('HSET', KEYS[1], 'reserved:' .. ARGV[1], string.format('%d:%d', epoch, ARGV[5]))
return 1
"""
)


@dataclass(frozen=True, slots=True)
class Reservation:
    lease_epoch: int  # of the tenure that reserved (0: none ever did)
    end_offset: int  # no offset at or past it was given by that tenure

    @property
    def token(self) -> str:
        return f"{self.lease_epoch}:{self.end_offset}"


NO_RESERVATION = Reservation(0, 0)


class OffsetReservations:
    def __init__(self, redis: RedisClient, clock: Clock) -> None:
        self._redis = redis
        self._clock = clock
        self._begin = timed_scripts.register(redis, "begin_reservation", BEGIN)
        self._extend = timed_scripts.register(redis, "extend_reservation", EXTEND)
        self._trim = timed_scripts.register(redis, "trim_reservation", TRIM)

    async def current(self, stream_id: str, partition: int) -> Reservation:
        with redis_boundary():
            found = await self._redis.hget(
                redis_keys.partition_leases(stream_id), f"reserved:{partition}"
            )
        if found is None:
            return NO_RESERVATION
        epoch, end = as_text(found).split(":")
        return Reservation(int(epoch), int(end))

    async def begin(
        self,
        stream_id: str,
        partition: int,
        node_id: str,
        lease_epoch: int,
        *,
        expected: Reservation,
        start_offset: int,
    ) -> bool:
        """Starts the tenure `lease_epoch` (whose lease `node_id` holds) at `start_offset`,
        if the reservation is still `expected` (read before the caller recorded its pending
        tail) and `start_offset` is not below its end. False changes nothing."""
        return await self._call(
            self._begin, stream_id, partition, node_id, lease_epoch, expected.token, start_offset
        )

    async def extend(
        self, stream_id: str, partition: int, node_id: str, lease_epoch: int, end_offset: int
    ) -> bool:
        """Raises the tenure's reserved end to `end_offset` (if below). False: the lease
        is not current or not this tenure's, and the holder must stop acknowledging."""
        return await self._call(
            self._extend, stream_id, partition, node_id, lease_epoch, end_offset
        )

    async def trim(
        self, stream_id: str, partition: int, node_id: str, lease_epoch: int, end_offset: int
    ) -> bool:
        """Lowers the tenure's reserved end to its log's end, once everything below is
        archived, before the lease is released: the next holder then starts there."""
        return await self._call(self._trim, stream_id, partition, node_id, lease_epoch, end_offset)

    async def _call(
        self,
        script: timed_scripts.TimedScript,
        stream_id: str,
        partition: int,
        node_id: str,
        lease_epoch: int,
        *args: int | str,
    ) -> bool:
        with redis_boundary():
            done = await script(
                keys=[redis_keys.partition_leases(stream_id)],
                args=[partition, node_id, lease_epoch, self._clock.now_ms(), *args],
            )
        return int(done) == 1
