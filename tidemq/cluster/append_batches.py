"""A gateway's appends to one partition, coalesced into one request while another is out.

The node's cost is per request far more than per record (a frame each way, an admission,
a producer-sequence check, a log append and its share of a sync), and a gateway's
appends are small: one send, or a batch of ten. So while `max_in_flight` requests to a
partition are unanswered, the partition's further appends wait, and when one returns
they go out together as one request: their records in the order the appends came, under
one producer sequence (the node deduplicates the request as one, and a retry repeats it
whole), each caller getting back its own first offset, the request's plus the records
ahead of its own. An append with nothing in flight goes at once, alone.

A request carries at most `max_records` records and about `max_bytes` bytes (bodies,
ids, keys and attributes), far below the protocol's 256 MiB frame: an append over those
on its own goes alone; the next waits for the next request.

Errors: a request that fails fails every append in it, each caller getting the error,
except one the node refused as malformed (ValueError: nothing was written), which is
sent again append by append, so that only the append at fault fails. A caller cancelled
while it waits is left out; one cancelled while its request is out does not stop the
request (other appends ride in it). An append given `patience_s` that is still waiting
(not yet in a request) after it is withdrawn: it raises NotSent, nothing of it written.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from storage_nodes.node import RecordIn, StorageUnavailable

K = TypeVar("K", bound=Hashable)

DEFAULT_MAX_IN_FLIGHT = 1
DEFAULT_MAX_RECORDS = 1_000
DEFAULT_MAX_BYTES = 4 * 1024 * 1024
# A record's bytes beyond its variable fields: offsets, timestamps, lengths, framing.
_RECORD_OVERHEAD_BYTES = 64


class NotSent(Exception):
    """The append waited `patience_s` behind a request still unanswered, and was
    withdrawn: it was not sent, so it was not written."""


@dataclass(slots=True)
class _Append:
    records: Sequence[RecordIn]
    size_bytes: int
    done: asyncio.Future[int]
    taken: bool = False  # in a request: its fate is the request's


@dataclass(slots=True)
class _Partition:
    waiting: deque[_Append] = field(default_factory=deque)
    senders: int = 0  # requests out, each sent by a task of its own


class AppendBatches(Generic[K]):
    """`append(key, records)` -> the first offset, through `send(key, records)`, which
    appends the records as one request and returns the first one's offset. One event
    loop."""

    def __init__(
        self,
        send: Callable[[K, list[RecordIn]], Awaitable[int]],
        *,
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
        max_records: int = DEFAULT_MAX_RECORDS,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        if max_in_flight < 1 or max_records < 1 or max_bytes < 1:
            raise ValueError("max_in_flight, max_records and max_bytes must be >= 1")
        self._send = send
        self._max_in_flight = max_in_flight
        self._max_records = max_records
        self._max_bytes = max_bytes
        self._partitions: dict[K, _Partition] = {}
        self._senders: set[asyncio.Task[None]] = set()
        self._closed = False

    async def append(
        self, key: K, records: Sequence[RecordIn], *, patience_s: float | None = None
    ) -> int:
        if self._closed:
            raise StorageUnavailable("the gateway is shutting down")
        partition = self._partitions.get(key)
        if partition is None:
            partition = self._partitions[key] = _Partition()
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        waiting = _Append(records, _size_bytes(records), done)
        partition.waiting.append(waiting)
        if partition.senders < self._max_in_flight:
            partition.senders += 1
            sender = asyncio.create_task(self._send_waiting(key, partition))
            self._senders.add(sender)
            sender.add_done_callback(self._senders.discard)
        if patience_s is not None:
            try:
                await asyncio.wait([done], timeout=patience_s)
            except asyncio.CancelledError:
                done.cancel()  # as awaiting `done` itself would have
                raise
            if not done.done() and not waiting.taken:
                done.cancel()  # left out of the next request, as a cancelled caller is
                raise NotSent(f"waited {patience_s} s behind a request still unanswered")
        return await done

    async def close(self) -> None:
        """Stops the requests out; their callers and those waiting get StorageUnavailable."""
        self._closed = True
        senders = list(self._senders)
        for sender in senders:
            sender.cancel()
        await asyncio.gather(*senders, return_exceptions=True)

    async def _send_waiting(self, key: K, partition: _Partition) -> None:
        batch: list[_Append] = []
        try:
            while batch := self._take(partition):
                await self._send_batch(key, batch)
        except asyncio.CancelledError:
            closing = StorageUnavailable("the gateway is shutting down")
            for waiting in [*batch, *partition.waiting]:
                _fail(waiting, closing)
            partition.waiting.clear()
            raise
        finally:
            partition.senders -= 1
            if not partition.senders and self._partitions.get(key) is partition:
                del self._partitions[key]

    async def _send_batch(self, key: K, batch: list[_Append]) -> None:
        records = [record for waiting in batch for record in waiting.records]
        try:
            offset = await self._send(key, records)
        except ValueError as exc:
            if len(batch) == 1:
                _fail(batch[0], exc)
                return
            # Refused whole, written in no part: the append at fault is found alone, one
            # request at a time (the partition's bound), leaving out cancelled callers.
            for waiting in batch:
                if not waiting.done.done():
                    await self._send_batch(key, [waiting])
            return
        except Exception as exc:
            for waiting in batch:
                _fail(waiting, exc)
            return
        for waiting in batch:
            if not waiting.done.done():
                waiting.done.set_result(offset)
            offset += len(waiting.records)

    def _take(self, partition: _Partition) -> list[_Append]:
        """The next request's appends: those waiting, oldest first, within the bounds."""
        batch: list[_Append] = []
        records = size_bytes = 0
        waiting = partition.waiting
        while waiting:
            head = waiting[0]
            if head.done.done():  # its caller was cancelled
                waiting.popleft()
                continue
            if batch and (
                records + len(head.records) > self._max_records
                or size_bytes + head.size_bytes > self._max_bytes
            ):
                break
            head.taken = True
            batch.append(waiting.popleft())
            records += len(head.records)
            size_bytes += head.size_bytes
        return batch


def _fail(waiting: _Append, exc: BaseException) -> None:
    if not waiting.done.done():
        waiting.done.set_exception(exc)


def _size_bytes(records: Sequence[RecordIn]) -> int:
    """About what the records take in a request: their variable fields and an overhead."""
    total = 0
    for record in records:
        total += (
            _RECORD_OVERHEAD_BYTES
            + len(record.body)
            + len(record.message_id)
            + len(record.key or b"")
            + len(record.group_id or "")
            + len(record.dedup_id or "")
        )
        for attributes in (record.attributes, record.system_attributes):
            for name, value in attributes.items():
                total += (
                    len(name)
                    + len(value.data_type)
                    + len(value.string_value or "")
                    + len(value.binary_value or b"")
                )
    return total
