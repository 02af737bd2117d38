"""Running message move tasks: dead-letter queue messages back to their sources.

Each task runs as one asyncio task in the gateway that started it. A round receives up
to ten messages from the dead-letter queue, sends each to its destination (the given
one, or the queue its `DeadLetterQueueSourceArn` names), then deletes them from the
dead-letter queue; so a crash or a cancel mid-round can duplicate a message, never lose
one. The task moves at most as many messages as the queue held when it started, at most
`max_per_second` a second, and records its progress (its heartbeat) after every round.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from control_plane.arns import parse_queue_arn
from control_plane.deliveries import SubscriptionStats
from control_plane.errors import ControlPlaneError, InvalidParameterValue
from control_plane.move_tasks import MoveTask, MoveTaskStore
from control_plane.queues import QueueInfo
from gateway.core.errors import CoreError
from gateway.core.messages import (
    DEAD_LETTER_SOURCE,
    NewMessage,
    ReceivedMessage,
    Record,
    SentMessage,
)

log = logging.getLogger(__name__)

ROUND_MESSAGES = 10
# Long enough for a round's sends; a message not deleted by then is moved again.
ROUND_VISIBILITY_MS = 60_000


class QueueOperations(Protocol):
    """What a move task does to queues: the broker's operations it needs."""

    async def get_queue(self, account_id: str, name: str) -> QueueInfo: ...

    async def dead_letter_sources(self, queue: QueueInfo) -> list[str]: ...

    async def queue_stats(self, queue: QueueInfo) -> SubscriptionStats: ...

    async def receive(
        self,
        queue: QueueInfo,
        max_messages: int,
        visibility_timeout_ms: int | None = None,
        wait_ms: int | None = None,
    ) -> list[ReceivedMessage]: ...

    async def send(self, queue: QueueInfo, messages: Sequence[NewMessage]) -> list[SentMessage]: ...

    async def delete_messages(
        self, queue: QueueInfo, receipt_handles: Sequence[str]
    ) -> list[CoreError | None]: ...

    @staticmethod
    def resend(record: Record) -> NewMessage: ...


class MoveTaskRunner:
    def __init__(self, queues: QueueOperations, store: MoveTaskStore) -> None:
        self._queues = queues
        self._store = store
        self._running: dict[str, asyncio.Task[None]] = {}

    async def start(
        self, source: QueueInfo, destination: QueueInfo | None, max_per_second: int | None
    ) -> MoveTask:
        if not await self._queues.dead_letter_sources(source):
            raise InvalidParameterValue("Source queue must be configured as a Dead Letter Queue.")
        if destination is not None and destination.name == source.name:
            raise InvalidParameterValue("The destination must not be the source queue.")
        if destination is not None and destination.fifo != source.fifo:
            raise InvalidParameterValue("Source and destination must both be FIFO or standard.")
        stats = await self._queues.queue_stats(source)
        task = await self._store.start(
            source.account_id,
            source.name,
            destination.name if destination else None,
            max_per_second,
            to_move=stats.visible,
        )
        self._running[task.task_id] = asyncio.create_task(
            self._run(task), name=f"move-task {task.task_id}"
        )
        return task

    async def close(self) -> None:
        """Stops the tasks running here; their records show FAILED once their heartbeat
        is stale, and what they received but did not delete becomes visible again."""
        running, self._running = self._running, {}
        for task in running.values():
            task.cancel()
        for task in running.values():
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self, task: MoveTask) -> None:
        store = self._store
        current = task
        try:
            while True:
                if await store.cancel_requested(current):
                    await store.save(replace(current, status="CANCELLED"))
                    return
                moved = await self._round(current)
                if moved == 0:
                    await store.save(replace(current, status="COMPLETED"))
                    return
                current = await store.save(replace(current, moved=current.moved + moved))
        except (ControlPlaneError, CoreError) as exc:
            log.warning("message move task %s failed: %s", task.task_id, exc)
            await store.save(replace(current, status="FAILED", failure_reason=str(exc)))
        except Exception as exc:
            log.exception("message move task %s failed", task.task_id)
            failure = type(exc).__name__
            await store.save(replace(current, status="FAILED", failure_reason=failure))
        finally:
            self._running.pop(task.task_id, None)

    async def _round(self, task: MoveTask) -> int:
        """Moves one round; returns how many messages it moved (0: the task is done)."""
        budget = min(ROUND_MESSAGES, task.to_move - task.moved, task.max_per_second or 10)
        if budget <= 0:
            return 0
        queues = self._queues
        source = await queues.get_queue(task.account_id, task.source_queue)
        started = time.monotonic()
        received = await queues.receive(source, budget, ROUND_VISIBILITY_MS, wait_ms=0)
        if not received:
            return 0
        by_destination: defaultdict[str, list[ReceivedMessage]] = defaultdict(list)
        for message in received:
            by_destination[self._destination_of(task, message)].append(message)
        for name, messages in by_destination.items():
            destination = await queues.get_queue(task.account_id, name)
            await queues.send(destination, [queues.resend(m.record) for m in messages])
        await queues.delete_messages(source, [m.delivery.receipt_handle for m in received])
        if task.max_per_second:
            # Hold the rate: this round's messages may not take less than their share.
            await asyncio.sleep(
                max(len(received) / task.max_per_second - (time.monotonic() - started), 0)
            )
        return len(received)

    @staticmethod
    def _destination_of(task: MoveTask, message: ReceivedMessage) -> str:
        if task.destination_queue is not None:
            return task.destination_queue
        source = message.record.system_attributes.get(DEAD_LETTER_SOURCE)
        parsed = parse_queue_arn(source.string_value or "") if source else None
        if parsed is None or parsed[0] != task.account_id:
            raise InvalidParameterValue(
                f"Message {message.record.message_id} does not say which queue it came from."
            )
        return parsed[1]
