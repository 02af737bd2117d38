"""The census behind `/metrics`' gauges: each queue's depth and oldest message, and how
far each pushed subscription is behind its topic's log, read when Prometheus scrapes.

Counting at scrape time instead of on every send and receive keeps the hot path free of
it, and gives the same numbers whichever gateway is asked: they are read from the
control plane and the log, not kept by the process. The price is paid per scrape: for
each queue one pipelined read of its counts (control_plane/deliveries.py `stats`, the
same as GetQueueAttributes), one of its ack floor, its log's end and, when a message is
left, that message's record (for its age). For each pushed subscription its cursor and
its topic's log end.

Bounded: at most `max_queues` queues (accounts in order, each one's queues by name)
and as many subscriptions; what is left out is counted, not read. The reads run
`CONCURRENCY` at a time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from control_plane.dispatch_cursors import DispatchCursors
from control_plane.errors import NotFound, QueueDoesNotExist
from control_plane.plane import ControlPlane
from control_plane.queues import QueueInfo
from control_plane.subscriptions import SubscriptionInfo
from gateway.core.receiver import log_ends
from storage_nodes.node import Node, NodeError, StreamDropped

CONCURRENCY = 16

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class QueueGauges:
    account_id: str
    name: str
    visible: int
    in_flight: int
    delayed: int
    # Since the oldest message not yet deleted was sent; None when there is none (or
    # its record is gone from the log, past retention).
    oldest_age_ms: int | None
    appended: int  # messages ever appended to the queue's log (its partitions' ends)


@dataclass(frozen=True, slots=True)
class SubscriptionLag:
    account_id: str
    topic: str
    subscription_id: str
    protocol: str
    # Messages of the topic's log past the subscription's cursor: not yet delivered
    # (queue subscriptions), or not yet claimed for delivery (webhooks).
    behind: int


@dataclass(frozen=True, slots=True)
class Census:
    queues: list[QueueGauges]
    queues_left_out: int
    subscriptions: list[SubscriptionLag]
    subscriptions_left_out: int


async def take_census(control: ControlPlane, storage: Node, max_items: int) -> Census:
    names, queues_left_out = await _queue_names(control, max_items)
    pushed = await control.subscriptions.pushed()
    queues = await gather_bounded(names, lambda key: _queue_gauges(control, storage, *key))
    cursors = DispatchCursors(control.redis)
    lags = await gather_bounded(
        pushed[:max_items], lambda key: _subscription_lag(control, storage, cursors, *key)
    )
    return Census(
        queues=[q for q in queues if q is not None],
        queues_left_out=queues_left_out,
        subscriptions=[s for s in lags if s is not None],
        subscriptions_left_out=max(len(pushed) - max_items, 0),
    )


async def _queue_names(control: ControlPlane, max_queues: int) -> tuple[list[tuple[str, str]], int]:
    """Up to `max_queues` (account, queue) pairs, and how many more there are."""
    names: list[tuple[str, str]] = []
    left_out = 0
    for account_id in await control.accounts.all():
        room = max(max_queues - len(names), 0)
        if room:
            listed = await control.queues.list_names(account_id, "", room)
            names += [(account_id, name) for name in listed]
        if len(names) >= max_queues:
            left_out += max(await control.queues.count(account_id) - room, 0)
    return names, left_out


async def gather_bounded(items: Iterable[T], read: Callable[[T], Awaitable[R]]) -> list[R]:
    """`read` of every item, `CONCURRENCY` at a time, in the items' order."""
    semaphore = asyncio.Semaphore(CONCURRENCY)

    async def one(item: T) -> R:
        async with semaphore:
            return await read(item)

    return list(await asyncio.gather(*(one(item) for item in items)))


async def _queue_gauges(
    control: ControlPlane, storage: Node, account_id: str, name: str
) -> QueueGauges | None:
    try:
        return await queue_gauges(control, storage, await control.queues.get(account_id, name))
    except (QueueDoesNotExist, StreamDropped):
        return None  # deleted since it was listed


async def queue_gauges(control: ControlPlane, storage: Node, queue: QueueInfo) -> QueueGauges:
    """One queue's counts and the age of its oldest message, as the census reads them."""
    ends = await log_ends(storage, queue.stream_id, queue.partitions)
    stats = await control.deliveries.stats(queue.stream_id, ends, fifo=queue.fifo)
    oldest_ms: int | None = None
    for partition, end in ends.items():
        sent_ms = await _oldest_sent_ms(control, storage, queue.stream_id, partition, end)
        if sent_ms is not None:
            oldest_ms = sent_ms if oldest_ms is None else min(oldest_ms, sent_ms)
    now_ms = control.clock.now_ms()
    return QueueGauges(
        queue.account_id,
        queue.name,
        stats.visible,
        stats.in_flight,
        stats.delayed,
        None if oldest_ms is None else max(now_ms - oldest_ms, 0),
        sum(ends.values()),
    )


async def _oldest_sent_ms(
    control: ControlPlane, storage: Node, stream_id: str, partition: int, end: int
) -> int | None:
    """When the partition's oldest message not yet deleted was sent (its ack floor)."""
    floor = await control.deliveries.ack_floor(stream_id, partition)
    if floor >= end:
        return None
    try:
        found = await storage.read_offsets(stream_id, partition, [floor])
    except StreamDropped:
        raise
    except NodeError:  # archived and the archive unreachable: the age is unknown now
        return None
    record = found.get(floor)
    return None if record is None else record.timestamp_ms


async def _subscription_lag(
    control: ControlPlane,
    storage: Node,
    cursors: DispatchCursors,
    account_id: str,
    subscription_id: str,
) -> SubscriptionLag | None:
    try:
        subscription = await control.subscriptions.get(account_id, subscription_id)
        behind = await subscription_behind(storage, cursors, subscription)
    except (NotFound, StreamDropped):
        return None  # unsubscribed (or its topic deleted) since it was listed
    return SubscriptionLag(
        account_id, subscription.topic_name, subscription_id, subscription.protocol, behind
    )


async def subscription_behind(
    storage: Node, cursors: DispatchCursors, subscription: SubscriptionInfo
) -> int:
    """Messages of the topic's log past the subscription's cursors."""
    ends = await log_ends(storage, subscription.topic_stream_id, subscription.topic_partitions)
    behind = 0
    for partition, end in ends.items():
        behind += max(end - await cursors.position(subscription.id, partition), 0)
    return behind
