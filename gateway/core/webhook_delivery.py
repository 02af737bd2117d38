"""Delivery to HTTP/HTTPS subscriptions: confirmation, then each message POSTed with
retries by the delivery policy, and a dead-letter queue after the last one.

A webhook subscription is a subscription like a queue's own (control_plane/
deliveries.py): messages are claimed from the topic's log with a visibility timeout,
so a retry is a message whose visibility is set to the policy's next delay, its
receive count is the attempt's number, and a crash mid-attempt hands it out again once
its visibility ends. Messages go out in parallel (up to BATCH at a time per
subscription), paced by the policy's `maxReceivesPerSecond`; order is not kept, as in
SNS (FIFO topics take no webhooks).

A pending subscription gets SNS's SubscriptionConfirmation (a few tries), then nothing
until it is confirmed; its cursor starts at confirmation (gateway/core/topics.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from control_plane.deliveries import Delivery, any_partition
from control_plane.errors import NotFound
from control_plane.plane import ControlPlane
from control_plane.subscriptions import SubscriptionInfo
from control_plane.topics import TopicInfo
from gateway.core import fanout, notifications
from gateway.core.delivery_policies import EffectiveDeliveryPolicy
from gateway.core.envelopes import Envelopes
from gateway.core.receiver import UNAVAILABLE_RETRY_MS, absence_of, served_log_ends
from gateway.core.retry_schedules import retry_delay_s
from gateway.core.subscription_attributes import effective_policy
from gateway.core.webhooks import Webhooks, webhook_headers
from storage_nodes.node import Node, PartitionDown, Record

log = logging.getLogger(__name__)

BATCH = 10
ATTEMPT_TIMEOUT_S = 15.0
# Longer than an attempt may take, so that no other claim hands a message out meanwhile.
IN_FLIGHT_MS = 30_000
IDLE_WAIT_S = 1.0
CONFIRMATION_TRIES = 3
CONFIRMATION_RETRY_S = 5.0
PENDING_CHECK_S = 1.0

# Sends messages a subscription gave up on to its dead-letter queue (the dispatcher's).
DeadLetter = Callable[[SubscriptionInfo, TopicInfo, list[Record]], Awaitable[None]]


class WebhookDelivery:
    def __init__(
        self,
        control: ControlPlane,
        storage: Node,
        *,
        envelopes: Envelopes,
        webhooks: Webhooks,
        filters: fanout.Filters,
        dead_letter: DeadLetter,
    ) -> None:
        self._control = control
        self._storage = storage
        self._envelopes = envelopes
        self._webhooks = webhooks
        self._filters = filters
        self._dead_letter = dead_letter

    async def run(self, first: SubscriptionInfo) -> None:
        """Delivers the subscription until it is gone; raises what the caller retries
        (the control plane or the node unavailable)."""
        confirmation_sent = False
        deliveries = self._control.deliveries
        with self._control.wakeups.listen(first.topic_stream_id) as wake:
            while True:
                try:
                    subscription = await self._control.subscriptions.get(first.account_id, first.id)
                    topic = await self._control.topics.get(
                        subscription.account_id, subscription.topic_name
                    )
                except NotFound:
                    return
                if subscription.pending:
                    if not confirmation_sent:
                        confirmation_sent = await self._confirm(topic, subscription)
                    await asyncio.sleep(PENDING_CHECK_S)
                    continue
                if await self._round(topic, subscription):
                    continue
                wait_s = IDLE_WAIT_S
                next_due_ms = await deliveries.next_due_ms(subscription.id)
                if next_due_ms is not None:
                    now_ms = self._control.clock.now_ms()
                    wait_s = min(wait_s, max(next_due_ms - now_ms, 0) / 1000)
                await wake.wait(wait_s)

    async def _confirm(self, topic: TopicInfo, subscription: SubscriptionInfo) -> bool:
        message_id, body = self._envelopes.confirmation(
            topic, subscription, self._control.clock.now_ms()
        )
        headers = webhook_headers(
            message_type=notifications.SUBSCRIPTION_CONFIRMATION,
            message_id=message_id,
            topic_arn=topic.arn,
            subscription_arn=None,
        )
        for attempt in range(CONFIRMATION_TRIES):
            result = await self._webhooks.post(
                subscription.endpoint, body, headers, ATTEMPT_TIMEOUT_S
            )
            if result.ok:
                return True
            log.info(
                "subscription %s: confirmation to %s failed (%s)",
                subscription.arn,
                subscription.endpoint,
                result.status or result.error,
            )
            if not result.retryable or attempt == CONFIRMATION_TRIES - 1:
                break
            await asyncio.sleep(CONFIRMATION_RETRY_S)
        return True  # given up, as SNS does: the subscription stays pending

    async def _round(self, topic: TopicInfo, subscription: SubscriptionInfo) -> bool:
        """Claims and attempts up to BATCH messages; False when none was due."""
        policy = effective_policy(subscription, topic.attributes.get("DeliveryPolicy"))
        ends = await served_log_ends(self._storage, topic.stream_id, topic.partitions)
        claim = await self._control.deliveries.claim(
            subscription.id,
            ends,
            BATCH,
            IN_FLIGHT_MS,
            max_receives=policy.retry.num_retries + 1,
            first_partition=any_partition(ends),
        )
        if not claim:
            return False
        claimed = claim.deliveries + claim.dead_letters
        found, down = await self._records(topic, claimed)
        missing = [d for d in claimed if d.partition not in down and d.member not in found]
        waiting_keys, _ = await absence_of(self._storage, topic.stream_id, missing)
        unavailable = [d for d in missing if (d.partition, d.offset) in waiting_keys]
        # A partition down now: its records are unavailable for now, not gone.
        unavailable += [d for d in claimed if d.partition in down]
        if unavailable:
            # Neither attempted nor given up as gone: the record is on the tail of a node
            # that failed, readable once it is recovered (docs/cluster.md).
            retry_ms = self._control.clock.now_ms() + UNAVAILABLE_RETRY_MS
            for delivery in unavailable:
                await self._control.deliveries.defer(delivery, retry_ms)
        waiting = {d.member for d in unavailable}
        dead_letters = [d for d in claim.dead_letters if d.member not in waiting]
        given_up = [found[d.member] for d in dead_letters if d.member in found]
        if given_up:
            await self._dead_letter(subscription, topic, given_up)
        for dead in dead_letters:
            await self._control.deliveries.remove(dead, "dead_lettered")
        await asyncio.gather(
            *(
                self._attempt(topic, subscription, policy, d, found.get(d.member))
                for d in claim.deliveries
                if d.member not in waiting
            )
        )
        throttle = policy.throttle
        if throttle is not None:
            await asyncio.sleep(len(claim.deliveries) / throttle.max_receives_per_second)
        return True

    async def _records(
        self, topic: TopicInfo, claimed: list[Delivery]
    ) -> tuple[dict[str, Record], set[int]]:
        """The claimed records by delivery member ("partition:offset"), one read a
        partition; and the partitions not read for being down (with several: one alone
        is waited for)."""
        by_partition: dict[int, set[int]] = {}
        for delivery in claimed:
            by_partition.setdefault(delivery.partition, set()).add(delivery.offset)
        found: dict[str, Record] = {}
        down: set[int] = set()
        wait = topic.partitions == 1
        for partition, offsets in by_partition.items():
            try:
                records = await self._storage.read_offsets(
                    topic.stream_id, partition, sorted(offsets), wait=wait
                )
            except PartitionDown:
                down.add(partition)
                continue
            found.update({f"{partition}:{offset}": r for offset, r in records.items()})
        return found, down

    async def _attempt(
        self,
        topic: TopicInfo,
        subscription: SubscriptionInfo,
        policy: EffectiveDeliveryPolicy,
        delivery: Delivery,
        record: Record | None,
    ) -> None:
        deliveries = self._control.deliveries
        if record is None:
            await deliveries.remove(delivery, "expired")
            return
        if not self._filters.matches(subscription, record):
            await deliveries.remove(delivery, "filtered")
            return
        protocol = subscription.protocol
        text = fanout.message_for(record, protocol)
        raw = fanout.raw_delivery(subscription)
        body = (
            text.encode()
            if raw
            else self._envelopes.notification(topic, subscription, record, text)
        )
        headers = webhook_headers(
            message_type=notifications.NOTIFICATION,
            message_id=record.message_id,
            topic_arn=topic.arn,
            subscription_arn=subscription.arn,
            content_type=policy.content_type,
            raw=raw,
        )
        result = await self._webhooks.post(subscription.endpoint, body, headers, ATTEMPT_TIMEOUT_S)
        if result.ok:
            await deliveries.remove(delivery, "delivered")
            return
        delay_s = retry_delay_s(policy.retry, delivery.receive_count) if result.retryable else None
        log.info(
            "subscription %s: attempt %d at %s failed (%s)%s",
            subscription.arn,
            delivery.receive_count,
            subscription.endpoint,
            result.status or result.error,
            "" if delay_s is None else f"; next in {delay_s:g} s",
        )
        if delay_s is None:
            await self._dead_letter(subscription, topic, [record])
            await deliveries.remove(delivery, "dead_lettered")
            return
        receipt = deliveries.verify(subscription.id, delivery.receipt_handle)
        await deliveries.change_visibility([(receipt, int(delay_s * 1000))])
