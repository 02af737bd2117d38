"""Deliveries of one subscription: claim, delete and change visibility.

State per subscription (see control_plane.keys): a cursor per partition (the next offset
never delivered), one timers sorted set holding every in-flight message by the time its
visibility ends, and a hash of receive counts and current delivery numbers. Redis holds
references (partition, offset), never bodies: the caller reads those from the log.

A message is, at any moment, exactly one of: past the cursor (never delivered), in the
timers (in flight, or waiting to be redelivered), or deleted (below the cursor and in
neither structure). Each claim is one script, so two gateways claiming at once never hand
out the same delivery.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from redis.asyncio import Redis

from control_plane.clock import Clock
from control_plane.delivery_scripts import CHANGE_VISIBILITY, CLAIM, DELETE_MESSAGE
from control_plane.errors import redis_boundary
from control_plane.keys import SubscriptionKeys
from control_plane.receipts import Receipt, ReceiptSigner, invalid_receipt_error
from control_plane.redis_values import as_text


@dataclass(frozen=True, slots=True)
class SubscriptionStats:
    visible: int  # deliverable now: past the cursors, or with an elapsed timer
    in_flight: int  # received, visibility timeout not yet over


@dataclass(frozen=True, slots=True)
class Delivery:
    """One delivery of one message: where to read it, and the receipt that names it."""

    partition: int
    offset: int
    receive_count: int
    first_receive_ms: int
    receipt_handle: str


class Deliveries:
    def __init__(self, redis: Redis, clock: Clock, signer: ReceiptSigner) -> None:
        self._redis = redis
        self._clock = clock
        self._signer = signer
        self._claim = redis.register_script(CLAIM)
        self._delete = redis.register_script(DELETE_MESSAGE)
        self._change_visibility = redis.register_script(CHANGE_VISIBILITY)

    async def claim(
        self,
        subscription_id: str,
        log_ends: Mapping[int, int],
        max_messages: int,
        visibility_timeout_ms: int,
    ) -> list[Delivery]:
        """Claims up to `max_messages`: due timers first, then new messages below `log_ends`.

        `log_ends` maps partition -> the log's end offset (next to be written), so the
        cursor never passes a message that is not durable yet.
        """
        sub = SubscriptionKeys(subscription_id)
        args: list[int | str] = [self._clock.now_ms(), visibility_timeout_ms, max_messages]
        for partition, end in sorted(log_ends.items()):
            args += [partition, end]
        with redis_boundary():
            flat = await self._claim(keys=sub.all(), args=args)
        deliveries = []
        for i in range(0, len(flat), 4):
            partition_text, offset_text = as_text(flat[i]).split(":")
            receipt = Receipt(
                subscription_id, int(partition_text), int(offset_text), int(flat[i + 2])
            )
            deliveries.append(
                Delivery(
                    partition=receipt.partition,
                    offset=receipt.offset,
                    receive_count=int(flat[i + 1]),
                    first_receive_ms=int(flat[i + 3]),
                    receipt_handle=self._signer.sign(receipt),
                )
            )
        return deliveries

    def verify(self, subscription_id: str, receipt_handle: str) -> Receipt:
        """The receipt a handle names, checked to belong to this subscription."""
        receipt = self._signer.verify(receipt_handle)
        if receipt.subscription_id != subscription_id:
            # Signed by us, but for another queue (or an earlier queue of the same name).
            raise invalid_receipt_error(receipt_handle)
        return receipt

    async def delete(self, receipt: Receipt) -> bool:
        """Deletes the delivery the receipt names; False if it was stale or already gone."""
        sub = SubscriptionKeys(receipt.subscription_id)
        with redis_boundary():
            result = await self._delete(
                keys=[sub.timers, sub.deliveries], args=[receipt.member, receipt.delivery_seq]
            )
        return int(result) == 1

    async def change_visibility(self, receipt: Receipt, visibility_timeout_ms: int) -> bool:
        """Makes the message visible again after `visibility_timeout_ms` from now.

        False if the receipt does not name the message's current in-flight delivery.
        """
        sub = SubscriptionKeys(receipt.subscription_id)
        due_ms = self._clock.now_ms() + visibility_timeout_ms
        with redis_boundary():
            result = await self._change_visibility(
                keys=[sub.timers, sub.deliveries],
                args=[receipt.member, receipt.delivery_seq, due_ms],
            )
        return int(result) == 1

    async def next_due_ms(self, subscription_id: str) -> int | None:
        """When the earliest timer of the subscription falls due, if it has any."""
        with redis_boundary():
            first = await self._redis.zrange(
                SubscriptionKeys(subscription_id).timers, 0, 0, withscores=True
            )
        return int(first[0][1]) if first else None

    async def stats(self, subscription_id: str, log_ends: Mapping[int, int]) -> SubscriptionStats:
        """Approximate counts (read without a lock, as SQS's Approximate* are)."""
        sub = SubscriptionKeys(subscription_id)
        now_ms = self._clock.now_ms()
        with redis_boundary():
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.hgetall(sub.cursors)
                pipe.zcount(sub.timers, "-inf", now_ms)
                pipe.zcount(sub.timers, f"({now_ms}", "+inf")
                cursors, due, in_flight = await pipe.execute()
        unread = sum(
            max(end - int(cursors.get(str(partition).encode(), 0)), 0)
            for partition, end in log_ends.items()
        )
        return SubscriptionStats(visible=unread + int(due), in_flight=int(in_flight))

    async def drop(self, subscription_id: str) -> None:
        """Forgets every cursor, timer and count of the subscription."""
        with redis_boundary():
            await self._redis.delete(*SubscriptionKeys(subscription_id).all())
