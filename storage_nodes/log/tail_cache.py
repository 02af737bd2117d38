"""The batches a node appended last, kept as encoded bytes in a few large buffers, for
the readers of the partitions' tails.

Consumers mostly read what producers appended a moment before: the claim of a receive
names offsets just written. Reading them back from the segments costs a `preadv2` per
claim and a worker thread when the pages are not cached, for bytes the node had in hand
at append time. The cache keeps those bytes (each batch as `encode_batch` made it, and
the bodies' MD5s the gateway computed) and decodes a read's records from them.

Why bytes in large buffers, and not the appended `RecordIn`s: a burst of sends would
leave a few objects per record on CPython's small-object heap, scattered among the
burst's short-lived allocations. When they went, the heap's arenas stayed pinned by
whatever else lived in them: after a burst of 35 000 sends the process kept 1.3 times
its starting memory (docs/performance.md, "Under abuse"). A buffer here is one
allocation of `chunk_bytes` (1 MiB) that goes back to the system whole when it leaves.

Bounded in bytes over every partition of the node: a batch is copied into the buffer
being filled, and a new buffer is opened when it is full; when the buffers held would
pass the bound the oldest (of any partition) leave first, whole. A consumer that keeps
up reads from the cache; one that falls behind by more than the bound reads from the
segments, as before.

Bounded in age too (`max_age_s`): a buffer leaves once it has been open that long, read
or not, and a buffer open for half of it takes no more batches, so that every batch is
held between `max_age_s / 2` and `max_age_s`. Without it the last appends before a quiet
spell would stay in memory until newer ones pushed them out, which may be never. Ageing
runs on a timer of the event loop (none is needed while the cache is empty).

Correctness rests on what the log guarantees: a record's offset never names another
record while the log object is open (offsets are dense and never reused; retention only
removes segments from the start, and `PartitionLog.read_offsets` filters by the log's
start and end before asking the cache). An append enters only once it is durable and
returned, so the cache never holds what a reader of the segments could not see. A log
forgets its part of the cache when it closes (a partition reopened after a failure, or
started over at the archive's end, starts with none), and a buffer no open log has a
batch in leaves then.

Thread-safety: the event loop's thread only, like the log that calls it.
"""

from __future__ import annotations

import asyncio
import time
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence

from storage_nodes import metrics
from storage_nodes.log.record import Record, RecordIn
from storage_nodes.log.record_batch import DIGEST_BYTES, decode_covered

__all__ = ["PartitionTail", "TailCache"]

# How long a batch stays at most; see the module's docstring.
DEFAULT_MAX_AGE_S = 10.0
# One buffer: large enough to be its own allocation (the C allocator maps it apart from
# the small-object heap, and unmaps it when it goes), small against the bound.
_CHUNK_BYTES = 1 << 20
# At least this many buffers fit in the bound, so that letting the oldest go frees a
# fraction of the cache, not all of it.
_MIN_CHUNKS = 8
# The batches the cache keeps decoded, the oldest decoded out first: a consumer reads a
# batch of a hundred in several claims, and each would otherwise decode all of it. Few, and
# gone with their buffer: what a burst leaves is bytes, not objects.
_DECODED_BATCHES = 16


class _Chunk:
    """One buffer and the batches copied into it, in admission order."""

    __slots__ = ("data", "holders", "opened_s", "record_count", "seq", "used_bytes")

    def __init__(self, seq: int, size_bytes: int, opened_s: float) -> None:
        self.seq = seq
        self.data = bytearray(size_bytes)
        self.used_bytes = 0
        self.opened_s = opened_s
        self.record_count = 0
        self.holders: set[PartitionTail] = set()  # the tails with a batch in it


class TailCache:
    """The node-wide budget; each partition log holds a `PartitionTail` of it."""

    def __init__(
        self,
        max_bytes: int,
        max_age_s: float = DEFAULT_MAX_AGE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`clock`: seconds, monotonic; the event loop's timer ages the cache by it."""
        if max_bytes < 0:
            raise ValueError("max_bytes must be >= 0")
        if max_age_s <= 0:
            raise ValueError("max_age_s must be > 0")
        self.max_bytes = max_bytes
        self.max_age_s = max_age_s
        self.chunk_bytes = max(1, min(_CHUNK_BYTES, max_bytes // _MIN_CHUNKS))
        self._clock = clock
        self.size_bytes = 0  # of the buffers held, used or not
        self._chunks: dict[int, _Chunk] = {}  # by sequence number: oldest first
        self._next_seq = 0
        self._filling: _Chunk | None = None
        self._ageing: asyncio.TimerHandle | None = None
        # (tail, base offset) -> the batch's buffer and its records; oldest first.
        self._decoded: dict[tuple[PartitionTail, int], tuple[int, list[Record]]] = {}

    def partition(self) -> PartitionTail:
        """A new, empty tail for one partition log."""
        return PartitionTail(self)

    def oldest_seq(self) -> int:
        """The sequence number of the oldest buffer held (or of the next one)."""
        return next(iter(self._chunks), self._next_seq)

    def chunk(self, seq: int) -> _Chunk | None:
        return self._chunks.get(seq)

    def decoded(self, tail: PartitionTail, base_offset: int) -> list[Record] | None:
        """The records of a batch decoded lately, while its buffer is held."""
        held = self._decoded.get((tail, base_offset))
        return None if held is None else held[1]

    def remember(self, tail: PartitionTail, base_offset: int, seq: int,
                 records: list[Record]) -> None:  # fmt: skip
        decoded = self._decoded
        if len(decoded) >= _DECODED_BATCHES:
            del decoded[next(iter(decoded))]
        decoded[tail, base_offset] = (seq, records)

    def _room(self, size_bytes: int) -> _Chunk | None:
        """The buffer to copy `size_bytes` into: the one being filled, or a new one."""
        if size_bytes > self.max_bytes:
            return None  # would evict everything, itself included
        now_s = self._clock()
        chunk = self._filling
        if (
            chunk is not None
            and chunk.used_bytes + size_bytes <= len(chunk.data)
            and now_s - chunk.opened_s < self.max_age_s / 2
        ):
            return chunk
        capacity = max(self.chunk_bytes, size_bytes)
        while self._chunks and self.size_bytes + capacity > self.max_bytes:
            self._drop(next(iter(self._chunks.values())))
        chunk = self._filling = _Chunk(self._next_seq, capacity, now_s)
        self._next_seq += 1
        self._chunks[chunk.seq] = chunk
        self.size_bytes += capacity
        metrics.TAIL_CACHE_BYTES.inc(capacity)
        if self._ageing is None:
            self._age_later()
        return chunk

    def expire(self) -> None:
        """Lets go of the buffers open `max_age_s` or longer (the timer calls it)."""
        self._ageing = None
        opened_by_s = self._clock() - self.max_age_s
        while self._chunks:
            oldest = next(iter(self._chunks.values()))
            if oldest.opened_s > opened_by_s:
                break
            self._drop(oldest)
        self._age_later()

    def _drop(self, chunk: _Chunk) -> None:
        del self._chunks[chunk.seq]
        if chunk is self._filling:
            self._filling = None
        self.size_bytes -= len(chunk.data)
        metrics.TAIL_CACHE_BYTES.dec(len(chunk.data))
        self._forget_decoded(lambda key, seq: seq == chunk.seq)
        if chunk.record_count:
            metrics.TAIL_CACHE_EVICTED.inc(chunk.record_count)

    def _age_later(self) -> None:
        """Sets the timer for the oldest buffer's expiry, if any is held and a loop runs
        (outside one the cache is bounded in bytes only)."""
        if not self._chunks:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        oldest = next(iter(self._chunks.values()))
        delay_s = oldest.opened_s + self.max_age_s - self._clock()
        self._ageing = loop.call_later(max(delay_s, 0.0), self.expire)

    def _release(self, tail: PartitionTail) -> None:
        """Lets go of the buffers that held batches of `tail` (closing) and no other's."""
        self._forget_decoded(lambda key, seq: key[0] is tail)
        for chunk in list(self._chunks.values()):
            chunk.holders.discard(tail)
            if not chunk.holders:
                self._drop(chunk)

    def _forget_decoded(self, which: Callable[[tuple[PartitionTail, int], int], bool]) -> None:
        for key in [key for key, (seq, _) in self._decoded.items() if which(key, seq)]:
            del self._decoded[key]


class PartitionTail:
    """One partition log's batches in the cache, by base offset.

    Indexed in arrays, one entry per batch in offset order: no Python object per batch
    or record stays behind an append. Entries whose buffer has gone are skipped by
    reads and cut from the front as appends go on.
    """

    __slots__ = ("_bases", "_cache", "_chunk_seqs", "_covered_ends", "_digests_at", "_ends",
                 "_head", "_starts")  # fmt: skip

    def __init__(self, cache: TailCache) -> None:
        self._cache = cache
        self._head = 0  # entries before it are of buffers gone
        self._bases = array("q")  # base offset of each batch
        self._ends = array("q")  # the offset after its last record
        self._chunk_seqs = array("q")  # its buffer
        self._starts = array("q")  # where its bytes start in the buffer
        self._covered_ends = array("q")  # where its encoded batch ends, from its start
        self._digests_at = array("q")  # where its MD5s are, from its start; -1: none

    def put(self, base_offset: int, covered: bytes, records: Sequence[RecordIn]) -> None:
        """A batch just appended durably at `base_offset`: `covered` is its encoding
        (`EncodedBatch.covered`) of `records`."""
        if self._bases and base_offset < self._ends[-1]:
            return  # out of order (an append resumed late): the segments have it
        digests = _digests(records)
        size_bytes = len(covered) + len(digests)
        chunk = self._cache._room(size_bytes)
        if chunk is None:
            return
        start = chunk.used_bytes
        data = chunk.data
        data[start : start + len(covered)] = covered
        data[start + len(covered) : start + size_bytes] = digests
        chunk.used_bytes += size_bytes
        chunk.record_count += len(records)
        chunk.holders.add(self)
        self._trim()
        self._bases.append(base_offset)
        self._ends.append(base_offset + len(records))
        self._chunk_seqs.append(chunk.seq)
        self._starts.append(start)
        self._covered_ends.append(len(covered))
        self._digests_at.append(len(covered) if digests else -1)

    def get(self, offsets: Iterable[int]) -> tuple[dict[int, Record], list[int]]:
        """The records of the offsets the cache has, and the offsets it has not."""
        missing: list[int] = []
        wanted: dict[int, list[int]] = {}  # by entry
        bases, ends, head = self._bases, self._ends, self._head
        for offset in offsets:
            entry = bisect_right(bases, offset, head) - 1
            if entry >= head and offset < ends[entry]:
                wanted.setdefault(entry, []).append(offset)
            else:
                missing.append(offset)
        found: dict[int, Record] = {}
        for entry, entry_offsets in wanted.items():
            base = bases[entry]
            records = self._cache.decoded(self, base) or self._decode(entry)
            if records is None:  # its buffer has gone
                missing += entry_offsets
                continue
            found.update((offset, records[offset - base]) for offset in entry_offsets)
        if found:
            metrics.TAIL_CACHE_HITS.inc(len(found))
        if missing:
            metrics.TAIL_CACHE_MISSES.inc(len(missing))
        return found, missing

    def _decode(self, entry: int) -> list[Record] | None:
        """The records of one batch, decoded whole and remembered: a consumer's next
        reads are mostly the rest of the same batch."""
        chunk = self._cache.chunk(self._chunk_seqs[entry])
        if chunk is None:
            return None
        base, start = self._bases[entry], self._starts[entry]
        covered_end, digests_at = self._covered_ends[entry], self._digests_at[entry]
        stop = start + covered_end
        if digests_at >= 0:
            stop += DIGEST_BYTES * (self._ends[entry] - base)
        batch = bytes(memoryview(chunk.data)[start:stop])
        records = decode_covered(batch, covered_end, base, digests_at)
        self._cache.remember(self, base, chunk.seq, records)
        return records

    def close(self) -> None:
        """Forgets every batch of this partition (its log is closing)."""
        self._head = len(self._bases)
        self._trim()
        self._cache._release(self)

    def _trim(self) -> None:
        """Cuts the entries of buffers gone from the front (they go oldest first)."""
        oldest_seq = self._cache.oldest_seq()
        seqs, head = self._chunk_seqs, self._head
        while head < len(seqs) and seqs[head] < oldest_seq:
            head += 1
        if head and (head == len(seqs) or (head > 1024 and head * 2 > len(seqs))):
            for column in (self._bases, self._ends, seqs, self._starts, self._covered_ends,
                           self._digests_at):  # fmt: skip
                del column[:head]
            head = 0
        self._head = head


def _digests(records: Sequence[RecordIn]) -> bytes:
    """The records' body MD5s, 16 bytes each; empty unless every record has one."""
    digests = bytearray()
    for record in records:
        if record.body_md5 is None:
            return b""
        try:
            digests += bytes.fromhex(record.body_md5)
        except ValueError:  # not hex: not one the gateway computed
            return b""
    return bytes(digests) if len(digests) == DIGEST_BYTES * len(records) else b""
