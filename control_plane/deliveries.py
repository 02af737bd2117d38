"""Deliveries of one subscription: claim, delete, visibility, delays, removal, purge, seek.

State per subscription (see control_plane.redis_keys): a cursor per partition (the next offset
never delivered), one timers sorted set holding every in-flight or delayed message by
the time it falls due, the receive counts and current delivery numbers, and per
partition the offsets not yet deleted. Redis holds references (partition, offset), never
bodies: the caller reads those from the log.

A message is, at any moment, exactly one of: past the cursor (never delivered), in the
timers (in flight, delayed, or waiting to be redelivered), or deleted (below the cursor
and in neither structure). Each change is one script, so two gateways claiming at once
never hand out the same delivery.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from control_plane import timed_scripts
from control_plane.clock import Clock
from control_plane.delivery_scripts import (
    CHANGE_VISIBILITY,
    CLAIM,
    CLAIM_TRAILER_LAYOUT,
    CLAIMED_LAYOUT,
    DEFER,
    DELAY,
    DELETE_MESSAGES,
    PURGE,
    REMOVE,
    SEEK,
)
from control_plane.errors import OverLimit, redis_boundary
from control_plane.fifo_scripts import CLAIM_FIFO, DEDUPLICATE, REGISTER_FIFO
from control_plane.receipts import Receipt, ReceiptSigner, invalid_receipt_error
from control_plane.redis_client import RedisClient
from control_plane.redis_keys import SubscriptionKeys
from control_plane.redis_values import as_text

_DELIVER = 1
# One claimed message in the claim scripts' reply.
_CLAIMED = struct.Struct(CLAIMED_LAYOUT)
_TRAILER = struct.Struct(CLAIM_TRAILER_LAYOUT)
# How long a dead letter handed to a caller stays invisible while the caller moves it.
DEAD_LETTER_HOLD_MS = 30_000
# How long a FIFO deduplication id is remembered, as in SQS.
DEDUP_WINDOW_MS = 5 * 60 * 1000
# SQS's quotas of messages in flight (received, not deleted, visibility not over).
MAX_IN_FLIGHT_STANDARD = 120_000
MAX_IN_FLIGHT_FIFO = 20_000


@dataclass(frozen=True, slots=True)
class SubscriptionStats:
    visible: int  # deliverable now: past the cursors, or with an elapsed timer
    in_flight: int  # received, visibility timeout not yet over
    delayed: int  # sent with a delay that has not yet elapsed


# Not frozen: a claim makes one per message, and a frozen dataclass's __init__ (one
# object.__setattr__ per field) cost 2.2 us against 0.5 us. Nothing changes one once made,
# but for its receipt handle, set once by the claim that signs it. Untracked by the
# garbage collector, as its Receipt is.
class Delivery(Receipt, gc=False):
    """One claim of one message: where to read it, and the receipt that names it (it is
    that receipt, so the signer remembers it as issued without another object)."""

    receive_count: int
    first_receive_ms: int
    receipt_handle: str


@dataclass(frozen=True, slots=True)
class Claim:
    deliveries: list[Delivery] = field(default_factory=list)
    # Received max-receive-count times already: to be moved to the dead-letter queue.
    dead_letters: list[Delivery] = field(default_factory=list)
    # It took all there was to take: nothing else is deliverable until something is
    # sent, or until `next_due_ms`, the subscription's earliest timer (its own
    # deliveries' included; None: no timer). False says nothing either way.
    drained: bool = False
    next_due_ms: int | None = None

    def __bool__(self) -> bool:
        return bool(self.deliveries or self.dead_letters)


@dataclass(frozen=True, slots=True)
class FifoEntry:
    """A message just appended to a FIFO queue's log, to register in its group."""

    offset: int
    group_id: str
    dedup_key: str | None  # None: no deduplication
    message_id: str
    partition: int = 0


@dataclass(frozen=True, slots=True)
class Registered:
    """The message id and place a sent FIFO message is known by: its own, or those of
    the first send of its deduplication id."""

    message_id: str
    offset: int
    duplicate: bool
    partition: int = 0


def _first_send(value: bytes | str) -> tuple[str, int, int]:
    """(message id, partition, offset) of a deduplication entry "<id>:<offset>" (partition
    0, as every entry was before partitions) or "<id>:<offset>:<partition>"."""
    message_id, offset, *partition = as_text(value).split(":")
    return message_id, int(partition[0]) if partition else 0, int(offset)


def any_partition(partitions: Collection[int]) -> int:
    """A partition to start a claim at, at random: over many claims, each partition
    gets the first pick as often as any other."""
    return random.choice(list(partitions)) if len(partitions) > 1 else 0


class Deliveries:
    def __init__(self, redis: RedisClient, clock: Clock, signer: ReceiptSigner) -> None:
        self._redis = redis
        self._clock = clock
        self._signer = signer
        self._claim = timed_scripts.register(redis, "claim", CLAIM)
        self._claim_fifo = timed_scripts.register(redis, "claim_fifo", CLAIM_FIFO)
        self._register_fifo = timed_scripts.register(redis, "register_fifo", REGISTER_FIFO)
        self._deduplicate = timed_scripts.register(redis, "deduplicate", DEDUPLICATE)
        self._delay = timed_scripts.register(redis, "delay", DELAY)
        self._defer = timed_scripts.register(redis, "defer", DEFER)
        self._delete = timed_scripts.register(redis, "delete_messages", DELETE_MESSAGES)
        self._change_visibility = timed_scripts.register(
            redis, "change_visibility", CHANGE_VISIBILITY
        )
        self._remove = timed_scripts.register(redis, "remove", REMOVE)
        self._purge = timed_scripts.register(redis, "purge", PURGE)
        self._seek = timed_scripts.register(redis, "seek", SEEK)

    async def claim(
        self,
        subscription_id: str,
        log_ends: Mapping[int, int],
        max_messages: int,
        visibility_timeout_ms: int,
        *,
        max_receives: int = 0,
        fifo: bool = False,
        max_in_flight: int | None = None,
        first_partition: int = 0,
    ) -> Claim:
        """Claims up to `max_messages`: due timers first, then messages below `log_ends`
        (for a FIFO queue: the first messages of the ready groups, oldest group first).

        `log_ends` maps partition -> the log's end offset, so the cursor never passes a
        message that is not durable yet. With `max_receives` > 0, a message already
        received that many times comes back in `dead_letters` instead. Raises OverLimit
        when `max_in_flight` messages (SQS's quota by default) are in flight already.

        New messages fill the claim partition by partition, from `first_partition` on
        (wrapping around): a receiver that starts each claim at another partition
        (`any_partition`) keeps a backlog in one from starving the others.
        """
        sub = SubscriptionKeys(subscription_id)
        partitions = sorted(log_ends)
        if first_partition in log_ends:
            start = partitions.index(first_partition)
            partitions = partitions[start:] + partitions[:start]
        args: list[int | str] = [
            self._clock.now_ms(),
            visibility_timeout_ms,
            max_messages,
            max_receives,
            DEAD_LETTER_HOLD_MS,
            max_in_flight or (MAX_IN_FLIGHT_FIFO if fifo else MAX_IN_FLIGHT_STANDARD),
        ]
        with redis_boundary():
            if fifo:
                keys = [sub.timers, sub.deliveries, sub.delivery_seq, sub.delayed]
                reply = await self._claim_fifo(keys=keys + sub.fifo_keys(), args=args)
            else:
                for partition in partitions:
                    args += [partition, log_ends[partition]]
                keys = sub.core() + [sub.unacked(p) for p in partitions]
                reply = await self._claim(keys=keys, args=args)
        if isinstance(reply, int):
            raise OverLimit(
                f"Too many messages in flight: at most {args[5]} may be received and not "
                "yet deleted at once."
            )
        return self._claimed(subscription_id, reply)

    def _claimed(self, subscription_id: str, reply: bytes) -> Claim:
        """The claim a claim script's packed reply describes, its receipts signed."""
        drained = len(reply) % _CLAIMED.size == _TRAILER.size
        next_due_ms = None
        rows_end = len(reply)
        if drained:
            rows_end -= _TRAILER.size
            _, due_ms = _TRAILER.unpack_from(reply, rows_end)
            next_due_ms = None if due_ms < 0 else due_ms
        rows = list(_CLAIMED.iter_unpack(memoryview(reply)[:rows_end]))
        made = [
            Delivery(subscription_id, partition, offset, seq, count, first_ms, "")
            for _, partition, offset, count, seq, first_ms in rows
        ]
        for delivery, handle in zip(made, self._signer.sign_all(made), strict=True):
            delivery.receipt_handle = handle
        if all(row[0] == _DELIVER for row in rows):
            return Claim(made, [], drained, next_due_ms)
        claim = Claim(drained=drained, next_due_ms=next_due_ms)
        for row, delivery in zip(rows, made, strict=True):
            (claim.deliveries if row[0] == _DELIVER else claim.dead_letters).append(delivery)
        return claim

    async def delay(
        self, subscription_id: str, partition: int, offsets: Sequence[int], due_ms: int
    ) -> int:
        """Registers just-appended messages as delayed until `due_ms`."""
        sub = SubscriptionKeys(subscription_id)
        with redis_boundary():
            registered = await self._delay(
                keys=[
                    sub.timers,
                    sub.deliveries,
                    sub.cursors,
                    sub.delayed,
                    sub.ahead,
                    sub.unacked(partition),
                ],
                args=[partition, due_ms, *offsets],
            )
        return int(registered)

    async def register_fifo(
        self, subscription_id: str, entries: Sequence[FifoEntry], delay_ms: int
    ) -> list[Registered]:
        """Registers just-appended FIFO messages in their groups (after `delay_ms`), unless
        their deduplication key was sent in the last five minutes."""
        sub = SubscriptionKeys(subscription_id)
        now_ms = self._clock.now_ms()
        keys = [sub.timers, sub.deliveries, sub.cursors, sub.delayed, *sub.fifo_keys()]
        keys += [sub.dedup, sub.dedup_expiry]
        key_index = {}
        for partition in sorted({entry.partition for entry in entries}):
            keys.append(sub.unacked(partition))
            key_index[partition] = len(keys)  # Lua counts KEYS from 1
        args: list[int | str] = [now_ms, DEDUP_WINDOW_MS, now_ms + delay_ms]
        for entry in entries:
            args += [
                entry.partition,
                entry.offset,
                entry.group_id,
                entry.dedup_key or "",
                entry.message_id,
                key_index[entry.partition],
            ]
        with redis_boundary():
            known = await self._register_fifo(keys=keys, args=args)
        registered = []
        for entry, value in zip(entries, known, strict=True):
            message_id, partition, offset = _first_send(value)
            duplicate = (partition, offset) != (entry.partition, entry.offset)
            registered.append(Registered(message_id, offset, duplicate, partition))
        return registered

    async def deduplicate(
        self, stream_id: str, entries: Sequence[tuple[int, int, str, str]]
    ) -> list[Registered]:
        """FIFO topics: records the (partition, offset, deduplication key, message id) of
        just-appended messages, unless their key was sent in the last five minutes."""
        sub = SubscriptionKeys(stream_id)
        args: list[int | str] = [self._clock.now_ms(), DEDUP_WINDOW_MS]
        for partition, offset, key, message_id in entries:
            args += [partition, offset, key, message_id]
        with redis_boundary():
            known = await self._deduplicate(keys=[sub.dedup, sub.dedup_expiry], args=args)
        registered = []
        for (partition, offset, _, _), value in zip(entries, known, strict=True):
            first_id, first_partition, first_offset = _first_send(value)
            duplicate = (first_partition, first_offset) != (partition, offset)
            registered.append(Registered(first_id, first_offset, duplicate, first_partition))
        return registered

    async def first_sends(
        self, stream_id: str, keys: Sequence[str]
    ) -> list[tuple[int, int] | None]:
        """FIFO topics: per deduplication key, the (partition, offset) of its first send
        while it is remembered (None after five minutes)."""
        with redis_boundary():
            values = await self._redis.hmget(SubscriptionKeys(stream_id).dedup, list(keys))
        return [None if v is None else _first_send(v)[1:] for v in values]

    async def start_at(self, subscription_id: str, offsets: Mapping[int, int]) -> None:
        """Sets a new subscription's cursors (partition -> the first offset it gets)."""
        with redis_boundary():
            await self._redis.hset(
                SubscriptionKeys(subscription_id).cursors,
                mapping={str(p): str(o) for p, o in offsets.items()},
            )

    async def defer(self, delivery: Delivery, due_ms: int) -> bool:
        """Turns a claimed message whose delivery time has not come back into a delay."""
        sub = SubscriptionKeys(delivery.subscription_id)
        with redis_boundary():
            result = await self._defer(
                keys=[sub.timers, sub.deliveries, sub.delayed],
                args=[delivery.member, delivery.delivery_seq, due_ms],
            )
        return int(result) == 1

    async def remove(self, delivery: Delivery, reason: str) -> bool:
        """Removes a claimed message for good without a receipt (expired, dead-lettered),
        counting it under `reason`."""
        sub = SubscriptionKeys(delivery.subscription_id)
        with redis_boundary():
            result = await self._remove(
                keys=[
                    sub.timers,
                    sub.deliveries,
                    sub.delayed,
                    sub.stats,
                    sub.unacked(delivery.partition),
                    *sub.fifo_keys(),
                ],
                args=[delivery.member, delivery.delivery_seq, reason],
            )
        return int(result) == 1

    def verify(self, subscription_id: str, receipt_handle: str) -> Receipt:
        """The receipt a handle names, checked to belong to this subscription."""
        receipt = self._signer.verify(receipt_handle)
        if receipt.subscription_id != subscription_id:
            # Signed by us, but for another queue (or an earlier queue of the same name).
            raise invalid_receipt_error(receipt_handle)
        return receipt

    async def delete(self, receipts: Sequence[Receipt]) -> list[bool]:
        """Deletes the deliveries the receipts name (of one subscription); per receipt,
        False if it was stale or the message already gone."""
        if not receipts:
            return []
        sub = SubscriptionKeys(receipts[0].subscription_id)
        partitions = sorted({r.partition for r in receipts})
        key_index = {p: 7 + i for i, p in enumerate(partitions)}
        triples = " ".join(
            f"{r.partition}:{r.offset} {r.delivery_seq} {key_index[r.partition]}" for r in receipts
        )
        with redis_boundary():
            results = await self._delete(
                keys=[
                    sub.timers,
                    sub.deliveries,
                    *sub.fifo_keys(),
                    *(sub.unacked(p) for p in partitions),
                ],
                args=[triples],
            )
        return [int(result) == 1 for result in results]

    async def change_visibility(self, changes: Sequence[tuple[Receipt, int]]) -> list[bool]:
        """Per (receipt, visibility timeout ms): the message becomes visible that long
        from now; False where the receipt is not the message's current in-flight one."""
        if not changes:
            return []
        sub = SubscriptionKeys(changes[0][0].subscription_id)
        now_ms = self._clock.now_ms()
        args: list[int | str] = []
        for receipt, timeout_ms in changes:
            args += [receipt.member, receipt.delivery_seq, now_ms + timeout_ms]
        with redis_boundary():
            results = await self._change_visibility(keys=[sub.timers, sub.deliveries], args=args)
        return [int(result) == 1 for result in results]

    async def purge(
        self, subscription_id: str, log_ends: Mapping[int, int], min_interval_ms: int
    ) -> bool:
        """Deletes every message below `log_ends`; False if the last purge was less than
        `min_interval_ms` ago (nothing changed)."""
        sub = SubscriptionKeys(subscription_id)
        partitions = sorted(log_ends)
        args: list[int | str] = [self._clock.now_ms(), min_interval_ms]
        for partition in partitions:
            args += [partition, log_ends[partition]]
        with redis_boundary():
            result = await self._purge(
                keys=[
                    sub.timers,
                    sub.deliveries,
                    sub.cursors,
                    sub.delayed,
                    sub.stats,
                    *sub.fifo_keys(),
                    sub.ahead,
                    *(sub.unacked(p) for p in partitions),
                ],
                args=args,
            )
        return int(result) == 1

    async def seek(self, subscription_id: str, cursors: Mapping[int, int]) -> None:
        """Moves the cursors (partition -> the next offset to deliver) and forgets every
        in-flight and delayed message: from now on the subscription gets the messages
        from the cursors on, whatever it got before, and receipts it handed out before
        name nothing."""
        sub = SubscriptionKeys(subscription_id)
        partitions = sorted(cursors)
        args: list[int | str] = []
        for partition in partitions:
            args += [partition, cursors[partition]]
        with redis_boundary():
            await self._seek(
                keys=[
                    sub.timers,
                    sub.deliveries,
                    sub.cursors,
                    sub.delayed,
                    sub.ahead,
                    *sub.fifo_keys(),
                    *(sub.unacked(p) for p in partitions),
                ],
                args=args,
            )

    async def cursors(self, subscription_id: str) -> dict[int, int]:
        """The subscription's cursors: partition -> the next offset never yet delivered."""
        with redis_boundary():
            raw = await self._redis.hgetall(SubscriptionKeys(subscription_id).cursors)
        return {int(as_text(p)): int(as_text(o)) for p, o in raw.items()}

    async def stats(
        self, subscription_id: str, log_ends: Mapping[int, int], fifo: bool = False
    ) -> SubscriptionStats:
        """Approximate counts (read without a lock, as SQS's Approximate* are)."""
        sub = SubscriptionKeys(subscription_id)
        now_ms = self._clock.now_ms()
        with redis_boundary():
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.hgetall(sub.cursors)
                pipe.scard(sub.ahead)
                pipe.zcount(sub.timers, "-inf", now_ms)
                pipe.zcount(sub.timers, f"({now_ms}", "+inf")
                pipe.zcount(sub.delayed, f"({now_ms}", "+inf")
                pipe.zcard(sub.fifo)
                cursors, ahead, due, pending, delayed, grouped = await pipe.execute()
        in_flight = max(int(pending) - int(delayed), 0)
        if fifo:
            # Every undelayed, undeleted FIFO message is in its group, in flight or not.
            visible = max(int(grouped) - in_flight, 0)
            return SubscriptionStats(visible=visible, in_flight=in_flight, delayed=int(delayed))
        unread = sum(
            max(end - int(cursors.get(str(partition).encode(), 0)), 0)
            for partition, end in log_ends.items()
        )
        return SubscriptionStats(
            visible=max(unread - int(ahead), 0) + int(due),
            in_flight=in_flight,
            delayed=int(delayed),
        )

    async def ack_floor(self, subscription_id: str, partition: int) -> int:
        """The lowest offset of the partition not yet deleted: everything below it may be
        removed from local storage as far as this subscription is concerned."""
        sub = SubscriptionKeys(subscription_id)
        with redis_boundary():
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.hget(sub.cursors, str(partition))
                pipe.zrange(sub.unacked(partition), 0, 0, withscores=True)
                cursor, lowest = await pipe.execute()
        floor = int(cursor or 0)
        if lowest:
            floor = min(floor, int(lowest[0][1]))
        return floor

    async def undeleted(
        self, subscription_id: str, partition: int, limit: int
    ) -> tuple[list[int], int]:
        """The partition's first `limit` offsets that were delivered or delayed and are
        not deleted yet, and its cursor (every offset from it on was never delivered).
        Read without a lock: what a console shows, not what a receive may rely on."""
        sub = SubscriptionKeys(subscription_id)
        with redis_boundary():
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.hget(sub.cursors, str(partition))
                pipe.zrange(sub.unacked(partition), 0, limit - 1, withscores=True)
                cursor, taken = await pipe.execute()
        return [int(score) for _, score in taken], int(cursor or 0)

    async def counters(self, subscription_id: str) -> dict[str, int]:
        """The subscription's counters: `expired`, `dead_lettered`."""
        with redis_boundary():
            raw = await self._redis.hgetall(SubscriptionKeys(subscription_id).stats)
        return {as_text(k): int(v) for k, v in raw.items() if as_text(k) != "purged_ms"}

    async def next_due_ms(self, subscription_id: str) -> int | None:
        """When the earliest timer of the subscription falls due, if it has any."""
        with redis_boundary():
            first = await self._redis.zrange(
                SubscriptionKeys(subscription_id).timers, 0, 0, withscores=True
            )
        return int(first[0][1]) if first else None

    async def drop(self, subscription_id: str, partitions: int) -> None:
        """Forgets every cursor, timer and count of the subscription."""
        with redis_boundary():
            await self._redis.delete(*SubscriptionKeys(subscription_id).all(partitions))
