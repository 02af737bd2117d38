"""Consuming a log: claim in Redis, read the bodies from the log, settle what is not to be
handed out (expired, filtered out, not yet due, received too often); delete and change
visibility by receipt.

What is consumed is a `Consumable` (gateway/core/consumables.py): a queue, or a pull
subscription reading its topic's log in place. Every claimed message is checked against
its record before it goes out:
- older than the retention period (or gone from the log): removed and counted;
- not matched by the subscription's filter policy: removed, never delivered;
- delivery time not reached (a delay whose registration lost a race with this claim):
  turned back into a delay;
- unavailable (its record is on the un-archived tail of a storage node that failed, not
  recovered yet): put back as a delay of UNAVAILABLE_RETRY_MS, neither delivered empty
  nor removed nor dead-lettered;
- never written (an offset an ownership change skipped: offsets are not dense across
  failovers, docs/cluster.md): removed, uncounted;
- a dead letter (received maxReceiveCount times): appended to the dead-letter queue's log
  with its original attributes and `DeadLetterQueueSourceArn`, then removed here. A crash
  between the two leaves it in both places, never in neither (at-least-once).
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence

from control_plane.arns import parse_queue_arn
from control_plane.deliveries import Claim, Delivery, FifoEntry, any_partition
from control_plane.errors import ControlPlaneError, MessageNotInflight, QueueDoesNotExist
from control_plane.plane import ControlPlane
from control_plane.queues import QueueInfo
from control_plane.receipts import Receipt
from gateway import metrics
from gateway.admission import parked
from gateway.core.consumables import Consumable
from gateway.core.errors import CoreError, from_lower_layer
from gateway.core.messages import DEAD_LETTER_SOURCE, ReceivedMessage
from gateway.core.partitioning import append_anywhere, group_partition
from storage_nodes.node import MessageAttribute, Node, PartitionDown, Record, RecordIn

log = logging.getLogger(__name__)

MAX_WAIT_MS = 20_000
# How long a message whose record is unavailable waits before it is tried again.
UNAVAILABLE_RETRY_MS = 2_000

# Per entry of a batch: None for success, or the error of that entry alone.
EntryResults = list[CoreError | None]


async def log_ends(storage: Node, stream_id: str, partitions: int) -> dict[int, int]:
    """The end offset of each of the stream's partitions."""
    if partitions == 1:  # the default: no task per partition
        return {0: await storage.end_offset(stream_id, 0)}
    ends = await asyncio.gather(*(storage.end_offset(stream_id, p) for p in range(partitions)))
    return dict(enumerate(ends))


async def served_log_ends(storage: Node, stream_id: str, partitions: int) -> dict[int, int]:
    """The end offset of each partition that is served now: one whose node is down
    (`Node.partitions_down`, or found so on asking) is left out, as having nothing new
    for now, rather than waited for. With one partition, or all of them down, it is
    waited for as `log_ends` does: there is nothing else to serve meanwhile."""
    if partitions == 1:
        return await log_ends(storage, stream_id, 1)
    down = storage.partitions_down(stream_id, partitions)
    asked = [p for p in range(partitions) if p not in down]
    if not asked:
        return await log_ends(storage, stream_id, partitions)
    answers = await asyncio.gather(
        *(storage.end_offset(stream_id, p, wait=False) for p in asked), return_exceptions=True
    )
    ends = {}
    for partition, answer in zip(asked, answers, strict=True):
        if isinstance(answer, PartitionDown):
            continue
        if isinstance(answer, BaseException):
            raise answer
        ends[partition] = answer
    if len(ends) < partitions:
        metrics.PARTITIONS_LEFT_OUT.inc(partitions - len(ends))
    return ends


async def absence_of(
    storage: Node, stream_id: str, missing: Iterable[Delivery]
) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    """Of claimed deliveries whose record a read did not return, the (partition, offset)
    of those (unavailable for now, never written): one question to the node a partition."""
    by_partition: defaultdict[int, list[int]] = defaultdict(list)
    for delivery in missing:
        by_partition[delivery.partition].append(delivery.offset)
    unavailable: set[tuple[int, int]] = set()
    never_written: set[tuple[int, int]] = set()
    for partition, offsets in by_partition.items():
        absence = await storage.absent(stream_id, partition, offsets)
        unavailable |= {(partition, offset) for offset in absence.unavailable}
        never_written |= {(partition, offset) for offset in absence.never_written}
    return unavailable, never_written


class Receiver:
    def __init__(self, control: ControlPlane, storage: Node) -> None:
        self._control = control
        self._storage = storage

    async def receive(
        self, source: Consumable, max_messages: int, visibility_timeout_ms: int, wait_ms: int
    ) -> list[ReceivedMessage]:
        """Up to `max_messages` deliverable messages, waiting up to `wait_ms` for the first.

        Returns as soon as anything is deliverable: an append or a due timer wakes the
        wait, so a long poll costs nothing while the log is idle.
        """
        clock = self._control.clock
        wakeups = self._control.wakeups
        key, subscription_id = source.stream_id, source.subscription_id
        deadline_ms = clock.now_ms() + min(wait_ms, MAX_WAIT_MS)
        waited = False
        with wakeups.listen(key) as wake:
            while True:
                look = wakeups.look_in_flight(key, subscription_id) if waited else None
                if look is not None:
                    # Woken with the others: one of them looks, the rest see what it left.
                    async with parked():
                        await asyncio.wait((look,))
                    waited = False  # looks for itself next, should that look leave more
                    continue
                # A look that found nothing since, with no notify after it, stands for
                # this one (control_plane/wakeups.py): a burst of polls makes one.
                mark = wakeups.idle_mark(key, subscription_id, clock.now_ms())
                if mark is None:
                    with wakeups.looking(key, subscription_id):
                        received, claim, settled = await self._claim(
                            source, max_messages, visibility_timeout_ms
                        )
                    if claim.drained and settled:
                        # Nothing else to take: the polls that follow wait, not look.
                        wakeups.mark_idle(
                            wake, key, subscription_id, clock.now_ms(), claim.next_due_ms
                        )
                    if received:
                        return received
                    now_ms = clock.now_ms()
                    if now_ms >= deadline_ms:
                        return []
                    if claim or not claim.drained:
                        # All it took was removed (expired, filtered out), or it passed
                        # over messages delayed at send: more may follow at once.
                        continue
                    next_due_ms = claim.next_due_ms
                else:
                    now_ms = clock.now_ms()
                    if now_ms >= deadline_ms:
                        return []
                    next_due_ms = mark.next_due_ms
                until_ms = deadline_ms if next_due_ms is None else min(deadline_ms, next_due_ms)
                async with parked():  # waiting is no work: others use the slot meanwhile
                    await wake.wait(max(until_ms - now_ms, 0) / 1000)
                waited = True

    async def delete(self, source: Consumable, receipt_handles: Sequence[str]) -> EntryResults:
        """Deletes the deliveries the receipts name, in one script call. A stale receipt
        (the message was received again since) succeeds and deletes nothing, as in SQS."""
        results, receipts = self._verify(source, receipt_handles)
        deleted = await self._control.deliveries.delete([r for _, r in receipts])
        counters = queue_counters(source)
        if counters is not None:
            counters.deleted.inc(sum(deleted))
        if source.fifo and any(deleted):
            # The next messages of the groups may be waiting for these.
            self._control.wakeups.notify(source.stream_id)
        return results

    async def change_visibility(
        self, source: Consumable, changes: Sequence[tuple[str, int]]
    ) -> EntryResults:
        """Per (receipt handle, visibility timeout ms). MessageNotInflight where the
        receipt does not name the message's current in-flight delivery."""
        results, receipts = self._verify(source, [handle for handle, _ in changes])
        changed = await self._control.deliveries.change_visibility(
            [(receipt, changes[i][1]) for i, receipt in receipts]
        )
        for (i, _), ok in zip(receipts, changed, strict=True):
            if not ok:
                results[i] = from_lower_layer(
                    MessageNotInflight(
                        "Message does not exist or is not available for visibility timeout change."
                    )
                )
        if any(changes[i][1] == 0 for i, _ in receipts):
            self._control.wakeups.notify(source.stream_id)
        return results

    def _verify(
        self, source: Consumable, handles: Sequence[str]
    ) -> tuple[EntryResults, list[tuple[int, Receipt]]]:
        results: EntryResults = [None] * len(handles)
        receipts = []
        verify = self._control.deliveries.verify
        for i, handle in enumerate(handles):
            try:
                receipts.append((i, verify(source.subscription_id, handle)))
            except ControlPlaneError as exc:
                results[i] = from_lower_layer(exc)
        return results, receipts

    async def _claim(
        self, source: Consumable, max_messages: int, visibility_timeout_ms: int
    ) -> tuple[list[ReceivedMessage], Claim, bool]:
        """What can be handed out of one claim; the claim; and whether it was settled
        without setting a timer of its own (none deferred, no dead letter), so that its
        `next_due_ms` is still the subscription's."""
        deliveries = self._control.deliveries
        redrive = source.redrive
        dead_letter_queue = await self._dead_letter_queue(source)
        ends = await served_log_ends(self._storage, source.stream_id, source.partitions)
        claim = await deliveries.claim(
            source.subscription_id,
            ends,
            max_messages,
            visibility_timeout_ms,
            max_receives=(redrive.max_receive_count if redrive and dead_letter_queue else 0),
            fifo=source.fifo,
            first_partition=any_partition(ends),
        )
        if not claim:
            return [], claim, True
        records, down = await self._records(source, claim.deliveries + claim.dead_letters)
        unavailable, never_written = await absence_of(
            self._storage,
            source.stream_id,
            [
                d
                for d in claim.deliveries + claim.dead_letters
                if d.partition not in down and (d.partition, d.offset) not in records
            ],
        )
        # A due message of a partition down now is unavailable for now, as one on a
        # failed node's tail is: put back for later, not waited for.
        unavailable |= {
            (d.partition, d.offset)
            for d in claim.deliveries + claim.dead_letters
            if d.partition in down
        }
        now_ms = self._control.clock.now_ms()
        for dead in claim.dead_letters:
            assert dead_letter_queue is not None
            key = (dead.partition, dead.offset)
            await self._dead_letter(
                source, dead_letter_queue, dead, records.get(key), key in unavailable
            )
        retention_ms = source.retention_ms
        policy = source.filter_policy
        counters = queue_counters(source)
        received: list[ReceivedMessage] = []
        filtered: list[Delivery] = []
        received_bytes = 0
        deferred = False
        for delivery in claim.deliveries:
            key = (delivery.partition, delivery.offset)
            record = records.get(key)
            if key in unavailable or key in never_written:
                deferred = deferred or key in unavailable
                await self._absent_one(delivery, key in unavailable, filtered, now_ms)
            elif record is None or (
                retention_ms is not None and record.timestamp_ms + retention_ms <= now_ms
            ):
                await deliveries.remove(delivery, "expired")
                if counters is not None:
                    counters.expired.inc()
            elif policy is not None and not policy.matches(record.attributes, record.body):
                filtered.append(delivery)
            elif delivery.receive_count == 1 and record.timestamp_ms + record.delay_ms > now_ms:
                deferred = True
                await deliveries.defer(delivery, record.timestamp_ms + record.delay_ms)
            else:
                received.append(ReceivedMessage(record, delivery, source.fifo, source.partitions))
                received_bytes += len(record.body)
        if received and counters is not None:
            counters.received.inc(len(received))
            counters.received_bytes.inc(received_bytes)
        if filtered:
            # One script for all of them: a selective filter may pass over many at a time.
            await deliveries.delete(filtered)  # a delivery is its own receipt
        return received, claim, not deferred and not claim.dead_letters

    async def _records(
        self, source: Consumable, deliveries: list[Delivery]
    ) -> tuple[dict[tuple[int, int], Record], set[int]]:
        """The claimed messages' records by (partition, offset), one read a partition;
        and the partitions that could not be read for being down (with several
        partitions: one alone is waited for)."""
        by_partition: defaultdict[int, list[int]] = defaultdict(list)
        for delivery in deliveries:
            by_partition[delivery.partition].append(delivery.offset)
        records = {}
        down = set()
        wait = source.partitions == 1
        for partition, offsets in by_partition.items():
            try:
                found = await self._storage.read_offsets(
                    source.stream_id, partition, offsets, wait=wait
                )
            except PartitionDown:
                down.add(partition)
                continue
            records.update({(partition, offset): r for offset, r in found.items()})
        return records, down

    async def _absent_one(
        self, delivery: Delivery, unavailable: bool, removed: list[Delivery], now_ms: int
    ) -> None:
        """An unavailable message is put back for later; a never-written offset holds no
        message, and is removed with the filtered ones."""
        if unavailable:
            await self._control.deliveries.defer(delivery, now_ms + UNAVAILABLE_RETRY_MS)
        else:
            removed.append(delivery)

    async def _dead_letter_queue(self, source: Consumable) -> QueueInfo | None:
        redrive = source.redrive
        if redrive is None:
            return None
        try:
            return await self._control.queues.get(
                redrive.dead_letter_account_id, redrive.dead_letter_queue
            )
        except QueueDoesNotExist:
            # SQS keeps delivering while the dead-letter queue is missing; so do we.
            log.warning("%s: dead-letter queue %s is missing", source.arn, redrive)
            return None

    async def _dead_letter(
        self,
        source: Consumable,
        target: QueueInfo,
        delivery: Delivery,
        record: Record | None,
        unavailable: bool,
    ) -> None:
        if unavailable:  # not dead-lettered while it cannot be read: put back for later
            now_ms = self._control.clock.now_ms()
            await self._control.deliveries.defer(delivery, now_ms + UNAVAILABLE_RETRY_MS)
            return
        if record is not None:
            moved = RecordIn(
                message_id=record.message_id,
                timestamp_ms=record.timestamp_ms,
                body=record.body,
                key=record.key,
                group_id=record.group_id,
                dedup_id=record.dedup_id,
                attributes=record.attributes,
                body_md5=record.body_md5,
                system_attributes={
                    **record.system_attributes,
                    DEAD_LETTER_SOURCE: MessageAttribute("String", source.arn),
                },
            )
            if target.fifo and record.group_id is not None:
                partition = group_partition(record.group_id, target.partitions)
                offset = await self._storage.append(
                    target.stream_id, partition, [moved], replication=target.replication
                )
            else:
                partition, offset = await append_anywhere(
                    self._storage, target.stream_id, target.partitions, [moved], target.replication
                )
            if target.fifo and record.group_id is not None:
                entry = FifoEntry(offset, record.group_id, None, record.message_id, partition)
                await self._control.deliveries.register_fifo(target.stream_id, [entry], 0)
            self._control.wakeups.notify(target.stream_id)
        await self._control.deliveries.remove(delivery, "dead_lettered")
        counters = queue_counters(source)
        if counters is not None:
            counters.dead_lettered.inc()


def queue_counters(source: Consumable) -> metrics.QueueCounters | None:
    """The /metrics counters of a queue; None for a topic's pull subscription (topics
    count their publishes, not their subscriptions' receives)."""
    queue = parse_queue_arn(source.arn)
    return metrics.queues.of(*queue) if queue is not None else None
