"""The broker: every operation of the gateway, in one protocol-neutral place.

The SQS, REST and WebSocket APIs (and SNS next) translate their wire formats into calls
of this object and its results back, so they share one meaning of create, send, receive,
delete, change visibility, purge and move. It is their only way into the control plane
and the storage node; every operation raises CoreError and nothing else
(gateway/core/errors.py). A send is acknowledged only after the log made it durable
(and its delay is registered); a receive claims references in Redis, then reads the
bodies from the log (gateway/core/receiver.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from control_plane.clock import Clock
from control_plane.deliveries import SubscriptionStats
from control_plane.dispatch_cursors import DispatchCursors
from control_plane.errors import PurgeQueueInProgress
from control_plane.move_tasks import MoveTask, parse_handle
from control_plane.plane import ControlPlane
from control_plane.queue_attributes import (
    MAX_MESSAGE_BYTES,
    ReplicationMode,
    integer_value,
    with_names_trimmed,
)
from control_plane.queue_policy import allows
from control_plane.queues import QueueInfo, check_queue_name
from control_plane.subscriptions import SubscriptionInfo
from gateway import metrics
from gateway.core import validation
from gateway.core.consumables import Consumable, queue_consumable
from gateway.core.dispatch_governor import DispatchGovernor
from gateway.core.dispatcher import Dispatcher
from gateway.core.envelopes import Envelopes
from gateway.core.errors import (
    CoreError,
    ErrorKind,
    queue_does_not_exist,
    translated,
)
from gateway.core.messages import (
    DEAD_LETTER_SOURCE,
    MessageInput,
    NewMessage,
    ReceivedMessage,
    SentMessage,
)
from gateway.core.move_tasks import MoveTaskRunner
from gateway.core.peek import PeekedMessage, peek
from gateway.core.pull_subscriptions import PullSubscriptions
from gateway.core.queue_census import (
    Census,
    QueueGauges,
    queue_gauges,
    subscription_behind,
    take_census,
)
from gateway.core.receiver import EntryResults, Receiver, log_ends
from gateway.core.sender import Sender
from gateway.core.topics import Topics
from gateway.core.validation import FieldNames
from storage_nodes.node import Node, Record, StreamDescriptor, TieringStatus

PURGE_INTERVAL_MS = 60_000
# SQS's maximum and default (1 MiB); a deployment may cap every queue lower.
DEFAULT_MAX_MESSAGE_BYTES = MAX_MESSAGE_BYTES

__all__ = ["Broker", "EntryResults"]


class Broker:
    def __init__(
        self,
        control: ControlPlane,
        storage: Node,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        *,
        default_replication: ReplicationMode = "none",
    ) -> None:
        """`max_message_bytes`: the deployment's cap on any queue's MaximumMessageSize;
        `default_replication`: a new queue's or topic's `Replication` unless it names one
        (TIDEMQ_REPLICATION)."""
        self._default_replication: ReplicationMode = default_replication
        self._control = control
        self._storage = storage
        self.max_message_bytes = max_message_bytes
        self._sender = Sender(control, storage)
        self._receiver = Receiver(control, storage)
        self._move_tasks = MoveTaskRunner(self, control.move_tasks)
        # SNS's operations: topics, subscriptions, publishing (gateway/core/topics.py).
        self._governor = DispatchGovernor()
        self.topics = Topics(
            control, storage, self._governor, default_replication=default_replication
        )
        # Pull subscriptions: consumed with the verbs above, and sought.
        self.pulls = PullSubscriptions(control, storage)
        self._dispatcher: Dispatcher | None = None

    @property
    def clock(self) -> Clock:
        """The time of messages: visibility timeouts, delays, retention."""
        return self._control.clock

    def start_dispatch(self, envelopes: Envelopes) -> None:
        """Starts delivering topics' pushed subscriptions (gateway/core/dispatcher.py)."""
        self._dispatcher = Dispatcher(
            self._control, self._storage, self._sender, envelopes, self._governor
        )
        self._dispatcher.start()

    async def close(self) -> None:
        """Stops the background work this broker runs (move tasks, dispatch)."""
        if self._dispatcher is not None:
            await self._dispatcher.close()
        await self._move_tasks.close()

    @translated
    async def ping(self) -> None:
        """Returns once the control plane answers and the storage node can take writes
        (readiness); ServiceUnavailable otherwise."""
        await self._control.ping()
        problem = self._storage.problem()
        if problem is not None:
            raise CoreError("ServiceUnavailable", problem, ErrorKind.UNAVAILABLE)

    # -- queues -------------------------------------------------------------------------

    @translated
    async def create_queue(
        self,
        account_id: str,
        name: str,
        attributes: Mapping[str, str],
        tags: Mapping[str, str] | None = None,
    ) -> QueueInfo:
        check_queue_name(name, attributes)  # before the deployment's cap, as SQS would
        self._check_attributes(attributes)
        queue = await self._control.queues.create(
            account_id, name, attributes, tags, default_replication=self._default_replication
        )
        await self._storage.create_stream(
            StreamDescriptor(
                queue.stream_id, account_id, "queue", name, queue.partitions, queue.created_ms
            )
        )
        return queue

    @translated
    async def get_queue(self, account_id: str, name: str) -> QueueInfo:
        return await self._control.queues.get(account_id, name)

    @translated
    async def permitted_queue(
        self, caller_account_id: str, owner_account_id: str, name: str, action: str
    ) -> QueueInfo:
        """The queue, if the caller owns it or its policy grants the caller `action`.

        Otherwise it does not exist as far as the caller can tell: one account cannot
        learn what another has.
        """
        queue = await self._control.queues.get(owner_account_id, name)
        if owner_account_id != caller_account_id and not allows(
            queue.settings.policy, caller_account_id, action
        ):
            raise queue_does_not_exist()
        return queue

    @translated
    async def list_queues(self, account_id: str, prefix: str = "") -> list[str]:
        return await self._control.queues.list_names(account_id, prefix)

    @translated
    async def delete_queue(self, queue: QueueInfo) -> None:
        """Removes the queue, then its delivery state and its log."""
        deleted = await self._control.queues.delete(queue.account_id, queue.name)
        await self._control.forget_stream(deleted.stream_id, deleted.partitions)
        await self._storage.drop_stream(deleted.stream_id)
        metrics.queues.drop(queue.account_id, queue.name)

    @translated
    async def purge_queue(self, queue: QueueInfo) -> None:
        """Deletes every message sent so far; at most once a minute, as in SQS."""
        ends = await log_ends(self._storage, queue.stream_id, queue.partitions)
        purged = await self._control.deliveries.purge(queue.stream_id, ends, PURGE_INTERVAL_MS)
        if not purged:
            raise PurgeQueueInProgress(
                f"Only one PurgeQueue operation on {queue.name} is allowed every 60 seconds."
            )

    @translated
    async def queue_stats(self, queue: QueueInfo) -> SubscriptionStats:
        ends = await log_ends(self._storage, queue.stream_id, queue.partitions)
        return await self._control.deliveries.stats(queue.stream_id, ends, fifo=queue.fifo)

    @translated
    async def census(self, max_items: int) -> Census:
        """Every queue's depth and oldest message and every pushed subscription's lag, for
        at most `max_items` of each: the gauges of /metrics (gateway/core/queue_census.py)."""
        return await take_census(self._control, self._storage, max_items)

    @translated
    async def queue_gauges(self, queue: QueueInfo) -> QueueGauges:
        """The queue's counts, oldest message's age and messages ever appended."""
        return await queue_gauges(self._control, self._storage, queue)

    @translated
    async def peek(self, queue: QueueInfo, max_messages: int) -> list[PeekedMessage]:
        """The queue's next messages, read without receiving them (gateway/core/peek.py)."""
        return await peek(self._control, self._storage, queue, max_messages)

    @translated
    async def subscription_behind(self, subscription: SubscriptionInfo) -> int:
        """Messages of the topic's log the pushed subscription has not taken yet."""
        cursors = DispatchCursors(self._control.redis)
        return await subscription_behind(self._storage, cursors, subscription)

    @translated
    async def set_queue_attributes(
        self, queue: QueueInfo, attributes: Mapping[str, str]
    ) -> QueueInfo:
        """Changes the given attributes (an empty policy removes it); the rest stay."""
        self._check_attributes(attributes)
        return await self._control.queues.set_attributes(queue.account_id, queue.name, attributes)

    @translated
    async def queue_tags(self, queue: QueueInfo) -> dict[str, str]:
        return await self._control.queues.tags(queue.account_id, queue.name)

    @translated
    async def tag_queue(self, queue: QueueInfo, tags: Mapping[str, str]) -> None:
        await self._control.queues.tag(queue.account_id, queue.name, tags)

    @translated
    async def untag_queue(self, queue: QueueInfo, tag_keys: Sequence[str]) -> None:
        await self._control.queues.untag(queue.account_id, queue.name, tag_keys)

    @translated
    async def dead_letter_sources(self, queue: QueueInfo) -> list[str]:
        """Names of the queues whose RedrivePolicy targets this one, sorted."""
        return await self._control.queues.dead_letter_sources(queue.account_id, queue.name)

    @translated
    async def add_permission(
        self,
        queue: QueueInfo,
        label: str,
        account_ids: Sequence[str],
        actions: Sequence[str],
    ) -> None:
        await self._control.queues.add_permission(
            queue.account_id, queue.name, label, account_ids, actions
        )

    @translated
    async def remove_permission(self, queue: QueueInfo, label: str) -> None:
        await self._control.queues.remove_permission(queue.account_id, queue.name, label)

    @translated
    async def archive_status(self, queue: QueueInfo) -> list[TieringStatus]:
        """What the archive holds of each of the queue's partitions, beside its log; empty
        where the node has no archive."""
        statuses = []
        for partition in range(queue.partitions):
            status = await self._storage.tiering_status(queue.stream_id, partition)
            if status is not None:
                statuses.append(status)
        return statuses

    def message_limit(self, queue: QueueInfo) -> int:
        """The most bytes a message of `queue` may have (body and attributes)."""
        return min(queue.settings.max_message_bytes, self.max_message_bytes)

    def _check_attributes(self, attributes: Mapping[str, str]) -> None:
        """Refuses a MaximumMessageSize beyond what this deployment allows."""
        # Anything but an integer within SQS's range is left to the control plane, which
        # refuses it in SQS's words. Names are read as the control plane reads them.
        size = integer_value(with_names_trimmed(attributes).get("MaximumMessageSize", ""))
        if size is not None and self.max_message_bytes < size <= MAX_MESSAGE_BYTES:
            raise CoreError(
                "InvalidAttributeValue",
                "Invalid value for the parameter MaximumMessageSize. Reason: this TideMQ "
                f"allows at most {self.max_message_bytes} (TIDEMQ_MAX_MESSAGE_BYTES).",
            )

    # -- messages -----------------------------------------------------------------------

    @translated
    async def send_message(
        self, queue: QueueInfo, draft: MessageInput, names: FieldNames
    ) -> SentMessage:
        """Checks the message, then sends it; MessageTooLong (TOO_LARGE) past the limit."""
        message = validation.check_message(queue, draft, names)
        limit_bytes = self.message_limit(queue)
        if validation.message_size(message) > limit_bytes:
            raise CoreError(
                "MessageTooLong",
                f"The message (body and attributes) must be shorter than {limit_bytes} bytes.",
                ErrorKind.TOO_LARGE,
                limit_bytes=limit_bytes,
            )
        [sent] = await self.send(queue, [message])
        return sent

    @translated
    async def send_batch(
        self, queue: QueueInfo, drafts: Sequence[MessageInput], names: FieldNames
    ) -> list[SentMessage | CoreError]:
        """Checks every message and sends the valid ones in one append; per entry, in
        order, what was sent or why that entry was refused. The whole batch is refused
        (BatchRequestTooLong) when its valid messages add up to more than the limit."""
        results: list[SentMessage | CoreError | None] = [None] * len(drafts)
        valid: list[tuple[int, NewMessage]] = []
        for index, draft in enumerate(drafts):
            try:
                valid.append((index, validation.check_message(queue, draft, names)))
            except CoreError as exc:
                results[index] = exc
        total = sum(validation.message_size(message) for _, message in valid)
        limit_bytes = self.message_limit(queue)
        if total > limit_bytes:
            raise CoreError(
                "BatchRequestTooLong",
                f"Batch requests cannot be longer than {limit_bytes} bytes. "
                f"You have sent {total} bytes.",
                ErrorKind.TOO_LARGE,
                limit_bytes=limit_bytes,
            )
        sent = await self.send(queue, [message for _, message in valid]) if valid else []
        for (index, _), one in zip(valid, sent, strict=True):
            results[index] = one
        return [r for r in results if r is not None]

    @translated
    async def send(self, queue: QueueInfo, messages: Sequence[NewMessage]) -> list[SentMessage]:
        """Appends checked messages to the queue's log in one batch and registers their
        delays (FIFO: their groups); returns once they are durable."""
        return await self._sender.send(queue, messages)

    @translated
    async def receive(
        self,
        source: QueueInfo | Consumable,
        max_messages: int,
        visibility_timeout_ms: int | None = None,
        wait_ms: int | None = None,
    ) -> list[ReceivedMessage]:
        """Up to `max_messages` of a queue (or of a pull subscription's Consumable),
        waiting up to `wait_ms` for the first; None takes the queue's VisibilityTimeout
        and ReceiveMessageWaitTimeSeconds (the subscription's)."""
        consumed = _consumable(source)
        return await self._receiver.receive(
            consumed,
            max_messages,
            consumed.visibility_timeout_ms
            if visibility_timeout_ms is None
            else visibility_timeout_ms,
            consumed.receive_wait_ms if wait_ms is None else wait_ms,
        )

    @staticmethod
    def resend(record: Record) -> NewMessage:
        """A dead-lettered message as it is sent back: as first sent, undelayed."""
        system = {k: v for k, v in record.system_attributes.items() if k != DEAD_LETTER_SOURCE}
        return NewMessage(
            body=record.body,
            attributes=record.attributes,
            system_attributes=system,
            delay_ms=0,
            group_id=record.group_id,
            dedup_id=record.dedup_id,
            deduplicate=False,
        )

    @translated
    async def delete_messages(
        self, source: QueueInfo | Consumable, receipt_handles: Sequence[str]
    ) -> EntryResults:
        """Deletes the deliveries the receipts name, in one script call. A stale receipt
        (the message was received again since) succeeds and deletes nothing, as in SQS."""
        return await self._receiver.delete(_consumable(source), receipt_handles)

    @translated
    async def change_visibility(
        self, source: QueueInfo | Consumable, changes: Sequence[tuple[str, int]]
    ) -> EntryResults:
        """Per (receipt handle, visibility timeout ms). MessageNotInflight where the
        receipt does not name the message's current in-flight delivery."""
        return await self._receiver.change_visibility(_consumable(source), changes)

    # -- message move tasks -------------------------------------------------------------

    @translated
    async def start_move_task(
        self, source: QueueInfo, destination: QueueInfo | None, max_per_second: int | None
    ) -> MoveTask:
        return await self._move_tasks.start(source, destination, max_per_second)

    @translated
    async def list_move_tasks(self, source: QueueInfo, limit: int) -> list[MoveTask]:
        """The queue's most recent tasks, newest first."""
        return await self._control.move_tasks.list(source.account_id, source.name, limit)

    @translated
    async def cancel_move_task(self, caller_account_id: str, handle: str) -> MoveTask:
        """Asks the task the handle names to stop; ResourceNotFoundException unless it is
        a task of the caller's account."""
        account_id, _source, task_id = parse_handle(handle)
        if account_id != caller_account_id:
            raise CoreError(
                "ResourceNotFoundException",
                "The task handle does not name a message move task.",
                ErrorKind.NOT_FOUND,
            )
        return await self._control.move_tasks.cancel(account_id, task_id)


def _consumable(source: QueueInfo | Consumable) -> Consumable:
    return source if isinstance(source, Consumable) else queue_consumable(source)
