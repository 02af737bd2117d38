"""Deduplication of appends by producer id and sequence, on the node that owns a partition.

A gateway names each append with its producer id (one per gateway process) and a
sequence number that rises with every append it makes. When it cannot tell whether an
append arrived (the answer was lost), it sends the same append again under the same
name; the node answers the first offset it gave the first time instead of appending
twice. An append still in progress when its copy arrives is waited for, not repeated.

Where the state lives, and its limits:

* In the owning node's memory, per partition and producer: the last `window` sequences
  appended and their first offsets. It is not written anywhere: a node that restarts, or
  a partition whose lease moves to another node, starts with none. That is why a gateway
  repeats an append whose fate it does not know only on the node it sent it to, under
  the same lease tenure (the partition's state is forgotten when the lease is lost,
  `forget`); an append that another node must take is refused first (NotOwner) and so
  was never written.
* A repeat older than the window cannot be told from a new append: it is refused
  (StorageUnavailable) rather than appended a second time.
* At most `max_producers` producers per partition are remembered, the least recently
  used dropped first; a gateway restarted takes a new producer id.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from storage_nodes.node import StorageUnavailable

DEFAULT_WINDOW = 256
DEFAULT_MAX_PRODUCERS = 1024


@dataclass(slots=True)
class _Producer:
    # sequence -> the first offset given, or the append still in progress
    appended: OrderedDict[int, asyncio.Future[int]] = field(default_factory=OrderedDict)
    forgotten_below: int = 0  # sequences below this that are not in `appended` are too old


class ProducerSequences:
    """Not thread-safe: one event loop."""

    def __init__(
        self, window: int = DEFAULT_WINDOW, max_producers: int = DEFAULT_MAX_PRODUCERS
    ) -> None:
        self._window = window
        self._max_producers = max_producers
        self._partitions: dict[tuple[str, int], OrderedDict[str, _Producer]] = {}

    async def append(
        self,
        stream_id: str,
        partition: int,
        producer_id: str,
        sequence: int,
        append: Callable[[], Awaitable[int]],
    ) -> int:
        """`append()`'s first offset, or the one a former call with this name gave."""
        producers = self._partitions.setdefault((stream_id, partition), OrderedDict())
        producer = producers.get(producer_id)
        if producer is None:
            producer = producers[producer_id] = _Producer()
            if len(producers) > self._max_producers:
                producers.popitem(last=False)
        else:
            producers.move_to_end(producer_id)
        earlier = producer.appended.get(sequence)
        if earlier is not None:
            return await asyncio.shield(earlier)
        if sequence < producer.forgotten_below:
            raise StorageUnavailable(
                f"append {sequence} of producer {producer_id} is older than the last "
                f"{self._window} this node remembers: it cannot tell whether it was appended"
            )
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        producer.appended[sequence] = done
        while len(producer.appended) > self._window:
            oldest, _ = producer.appended.popitem(last=False)
            producer.forgotten_below = max(producer.forgotten_below, oldest + 1)
        try:
            offset = await append()
        except BaseException as exc:
            # Not appended: a repeat may try again.
            if producer.appended.get(sequence) is done:
                del producer.appended[sequence]
            if isinstance(exc, asyncio.CancelledError):
                done.cancel()
            else:
                done.set_exception(exc)
                done.exception()  # retrieved: nobody else may be waiting for it
            raise
        done.set_result(offset)
        return offset

    def forget(self, stream_id: str, partition: int) -> None:
        """Drops the partition's state: its lease was lost or released."""
        self._partitions.pop((stream_id, partition), None)

    def forget_stream(self, stream_id: str) -> None:
        for key in [key for key in self._partitions if key[0] == stream_id]:
            del self._partitions[key]
