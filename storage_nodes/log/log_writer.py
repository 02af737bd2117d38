"""The single writer of a partition log: group commit, pipelining, rolls, flushes, close."""

from __future__ import annotations

import asyncio
import enum
import logging
import os
import time
from collections import deque
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import NamedTuple

from storage_nodes import metrics
from storage_nodes.log import kernel_sync
from storage_nodes.log.append_plan import AppendPlan, Finish
from storage_nodes.log.errors import LogClosedError, LogError, LogStorageError
from storage_nodes.log.fileio import in_worker
from storage_nodes.log.io_thread import IoThread
from storage_nodes.log.log_config import LogConfig
from storage_nodes.log.record_batch import EncodedBatch
from storage_nodes.log.segment import LogSegment
from storage_nodes.log.segments import LogSegments

__all__ = ["LogStats", "LogWriter"]

log = logging.getLogger(__name__)

# One round gathers at most this much; a burst larger than that goes out in several.
_MAX_ROUND_BYTES = 8 * 1024 * 1024
# Rounds handed to the I/O thread and not yet committed: one running, one ready behind it.
_MAX_IN_FLIGHT = 2


class _Op(enum.Enum):
    """Queued operations other than appends."""

    FLUSH = "flush"
    ROLL = "roll"
    CLOSE = "close"


class LogStats(NamedTuple):
    """Counters since the log was opened (for metrics and the benchmark)."""

    appends: int
    records: int
    writes: int  # rounds of appends written together
    syncs: int  # fdatasync calls on segment logs
    bytes_written: int


Step = AppendPlan[LogSegment] | LogSegment  # a plan to execute, or a new segment to create


class _Job:
    """One round (or one command) as handed to the I/O thread."""

    __slots__ = ("futures", "offsets", "op", "records", "seconds", "steps")

    def __init__(
        self,
        steps: list[Step],
        futures: list[asyncio.Future[int]],
        offsets: list[int],
        records: int,
        op: _Op | None,
    ) -> None:
        self.steps = steps
        self.futures = futures  # the callers to wake, and the offset each one gets
        self.offsets = offsets
        self.records = records
        self.op = op
        self.seconds = 0.0  # how long run() took, in the I/O thread

    def run(self) -> None:
        started_s = time.perf_counter()
        for step in self.steps:
            if isinstance(step, AppendPlan):
                step.segment.write(step)
            else:
                step.create_files()
        self.seconds = time.perf_counter() - started_s


class LogWriter:
    """Serializes every change to a partition's files; acknowledges appends per policy.

    Group commit: appends queue up while writes are in flight; a round takes all of them
    in one write that under ``fsync`` is also one sync. An append that finds the I/O
    thread idle goes out at once, alone, unless the callers of a round are resuming in
    this loop pass (producers appending again at once then arrive together). Offsets are
    assigned when a round is placed, in queue order; a round becomes readable when its
    I/O is done.

    Pipelining: up to two rounds are with the I/O thread at once; appends that arrive
    while a round is being written form the next one, which starts the moment the first
    ends, without a round trip through the loop. The callers of a round are woken when
    it is committed.

    Syncs on the loop: under ``fsync``, a round of at most ``loop_sync_max_bytes`` that
    finds the I/O thread idle is written from the loop and synced by the kernel's AIO
    (kernel_sync.py), its callers woken from the loop when the sync completes: the I/O
    thread's two waits for the GIL were most of a small round's time. One such round is
    out at a time, and nothing goes to the I/O thread meanwhile (rounds complete in
    order); appends that arrive meanwhile form the next round.

    A burst is not split in two rounds to overlap the loop's work with the sync: measured
    with loadtests/bench_log.py on two cores that was slower, because the sync itself
    needs a core and the two threads then contend for the GIL.

    Rolls, flushes and close are queued like appends and keep their place in the order.

    Failure: an I/O error fails its round, every later round and everything queued, and
    poisons the writer (``LogStorageError``): after a failed fsync the page cache cannot
    be trusted. Rounds committed before it stay acknowledged. Reopening recovers.

    Thread-safety: event-loop thread only (plus the I/O thread it owns).
    """

    def __init__(
        self,
        directory: Path,
        segments: LogSegments,
        config: LogConfig,
        now_ms: Callable[[], int],
    ) -> None:
        self._directory = directory
        self._segments = segments
        self._config = config
        self._now_ms = now_ms
        self._loop = asyncio.get_running_loop()
        # Queued appends, in order, and the commands between them: each command with the
        # number of appends (counted since the log opened) that must be placed before it.
        self._batches: list[EncodedBatch] = []
        self._futures: list[asyncio.Future[int]] = []
        self._commands: deque[tuple[int, _Op, asyncio.Future[int]]] = deque()
        self._appends_placed = 0
        self._in_flight: deque[_Job] = deque()
        self._tail = AppendPlan(segments.active)  # where the next round will start
        self._place_scheduled = False
        # True from a round's commit until the loop pass in which its callers resume:
        # producers that append again at once arrive together, and are kept together.
        self._waking = False
        self._failure: LogError | None = None
        self._dirty = False  # written but not fsynced (interval / none)
        self._flush_timer: asyncio.TimerHandle | None = None
        self._closed = False
        self._stats = LogStats(0, 0, 0, 0, 0)
        self._io: IoThread[_Job] = IoThread(f"log-io {directory}", self._loop, self._on_done)
        self._kernel_sync = (
            kernel_sync.acquire(self._loop)
            if config.durability == "fsync" and config.loop_sync_max_bytes > 0
            else None
        )
        self._syncing_on_loop = False  # a round is out on the loop's sync (one at a time)

    @property
    def stats(self) -> LogStats:
        return self._stats

    # -- submitting ---------------------------------------------------------------------

    def append(self, batch: EncodedBatch) -> asyncio.Future[int]:
        """Queue ``batch``; the future gives its base offset once durable per policy."""
        if self._failure is not None:
            self._raise_failure()
        future = self._loop.create_future()
        self._batches.append(batch)
        self._futures.append(future)
        if not (self._in_flight or self._commands or self._place_scheduled or self._waking):
            # The I/O thread is idle: waiting a loop pass for company would only delay
            # this append (at 1 000 single appends a second most rounds hold one). What
            # arrives meanwhile forms the next round, as under load.
            self._place()
        elif not self._place_scheduled:
            # Placed on the next loop pass, so a burst of appends becomes one round.
            self._place_scheduled = True
            self._loop.call_soon(self._place)
        return future

    async def roll(self) -> None:
        """Seal the active segment (if it holds anything) and start a new one."""
        await self._submit(_Op.ROLL)

    async def close(self) -> None:
        """Write what is queued, fsync, close the files and the I/O thread. Idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            if self._failure is None:
                await self._submit(_Op.CLOSE)
            self._failure = LogClosedError()
        finally:
            self._io.stop()
            await in_worker(self._io.join)
            if self._kernel_sync is not None:
                self._kernel_sync.release()
                self._kernel_sync = None
            # Normally closed by the CLOSE write already; not if a write failed.
            for segment in {self._segments.active, self._tail.segment}:
                await in_worker(segment.close_files)

    def _submit(self, op: _Op) -> asyncio.Future[int]:
        if self._failure is not None:
            self._raise_failure()
        future: asyncio.Future[int] = self._loop.create_future()
        self._commands.append((self._appends_placed + len(self._batches), op, future))
        if op is _Op.CLOSE:
            self._failure = LogClosedError()
        if not self._place_scheduled:
            self._place_scheduled = True
            self._loop.call_soon(self._place)
        return future

    def _raise_failure(self) -> None:
        if isinstance(self._failure, LogClosedError):
            raise LogClosedError(f"the log in {self._directory} is closed")
        raise LogStorageError(f"the log in {self._directory} failed; reopen it") from (
            self._failure
        )

    # -- placing rounds (loop) ----------------------------------------------------------

    def _place(self) -> None:
        self._place_scheduled = False
        commands = self._commands
        while len(self._in_flight) < _MAX_IN_FLIGHT and not self._syncing_on_loop:
            appends = len(self._batches)
            if commands:
                appends = min(appends, commands[0][0] - self._appends_placed)
            if appends:
                job = self._append_job(appends)
            elif commands:
                _, op, future = commands.popleft()
                job = self._command_job(op, future)
            else:
                break
            self._in_flight.append(job)
            plan = self._loop_sync_plan(job)
            if plan is None:
                self._io.submit(job)
            else:
                self._sync_on_loop(job, plan)

    def _loop_sync_plan(self, job: _Job) -> AppendPlan[LogSegment] | None:
        """The plan of ``job`` if it is to be written and synced from the loop."""
        syncer = self._kernel_sync
        if syncer is None or len(self._in_flight) != 1 or not syncer.has_room:
            return None
        if job.op is not None or len(job.steps) != 1:
            return None
        plan = job.steps[0]
        if not isinstance(plan, AppendPlan) or not plan.segment.can_sync_apart(plan):
            return None
        if plan.size - plan.position > self._config.loop_sync_max_bytes:
            return None
        return plan

    def _sync_on_loop(self, job: _Job, plan: AppendPlan[LogSegment]) -> None:
        assert self._kernel_sync is not None
        self._syncing_on_loop = True
        started_s = time.perf_counter()
        done = partial(self._synced_on_loop, job, plan, started_s)
        try:
            fd = plan.segment.write_unsynced(plan)
        except OSError as exc:
            self._loop.call_soon(done, exc)  # reported a loop pass later, as the thread does
            return
        try:
            self._kernel_sync.fdatasync(fd, done)
        except OSError:
            # The kernel would not take it (out of AIO resources, say): sync here, once;
            # rare enough that blocking the loop for one sync is the simple answer.
            log.warning("AIO refused a sync of %s; syncing on the loop", self._directory)
            error: OSError | None = None
            try:
                os.fdatasync(fd)
            except OSError as exc:
                error = exc
            self._loop.call_soon(done, error)

    def _synced_on_loop(
        self,
        job: _Job,
        plan: AppendPlan[LogSegment],
        started_s: float,
        error: OSError | None,
    ) -> None:
        if error is None:
            try:
                plan.segment.synced(plan)
            except OSError as exc:
                error = exc
            else:
                metrics.KERNEL_SYNCS.inc()
        job.seconds = time.perf_counter() - started_s
        self._syncing_on_loop = False
        self._on_done(job, error)

    def _append_job(self, appends: int) -> _Job:
        """Place the first ``appends`` queued appends (fewer past the round cap) after the
        tail of the log, rolling where needed."""
        config, batches = self._config, self._batches
        plan = self._tail.following()
        steps: list[Step] = [plan]
        offsets: list[int] = []
        now_ms = self._now_ms()
        if plan.size and now_ms - (plan.rolling_base_ms or 0) >= config.segment_max_age_ms:
            plan = self._roll(plan, steps)
        budget_bytes = _MAX_ROUND_BYTES
        placed = 0
        while True:
            size_before = plan.size
            placed = plan.add_batches(
                batches, offsets, start=placed, stop=appends, config=config,
                budget_bytes=budget_bytes, now_ms=now_ms,
            )  # fmt: skip
            budget_bytes -= plan.size - size_before
            if placed == appends or budget_bytes <= 0:
                break
            plan = self._roll(plan, steps)  # the next batch would overflow the segment
        plan.finalize(Finish.SYNC if config.durability == "fsync" else Finish.WRITE)
        self._tail = plan
        futures = self._futures[:placed]
        del self._futures[:placed], batches[:placed]
        self._appends_placed += placed
        return _Job(steps, futures, offsets, plan.next_offset - offsets[0], None)

    def _roll(self, plan: AppendPlan[LogSegment], steps: list[Step]) -> AppendPlan[LogSegment]:
        """Seal ``plan``'s segment after its writes; return a plan for the next segment."""
        plan.finalize(Finish.SEAL)
        segment = LogSegment(
            self._directory, plan.next_offset, self._config.index_interval_bytes, new=True
        )
        next_plan = AppendPlan(segment)
        steps += (segment, next_plan)
        return next_plan

    def _command_job(self, op: _Op, future: asyncio.Future[int]) -> _Job:
        plan = self._tail.following()
        steps: list[Step] = [plan]
        if op is _Op.ROLL and plan.size > 0:
            plan = self._roll(plan, steps)
        elif op is _Op.CLOSE:
            plan.finalize(Finish.CLOSE)
        elif op is _Op.FLUSH:
            plan.finalize(Finish.SYNC)
        else:
            steps = []  # nothing to roll: an empty segment stays the active one
        self._tail = plan
        return _Job(steps, [future], [plan.segment.base_offset], 0, op)

    # -- reports from the I/O thread (loop) ---------------------------------------------

    def _on_done(self, job: _Job, error: BaseException | None) -> None:
        finished = self._in_flight.popleft()
        assert finished is job, "rounds complete in the order they were submitted"
        if error is not None:
            self._fail(error, job)
            return
        try:
            self._commit(job)
        except Exception as exc:
            log.exception("committing a write of %s failed", self._directory)
            self._fail(exc, job)
            return
        _resolve(job.futures, job.offsets)
        if not self._waking:
            self._waking = True
            self._loop.call_soon(self._woken)  # runs after the callers just resumed
        self._place()

    def _woken(self) -> None:
        self._waking = False

    def _commit(self, job: _Job) -> None:
        writes = syncs = written = 0
        for step in job.steps:
            if isinstance(step, AppendPlan):
                step.segment.commit(step)
                writes += bool(step.parts)
                syncs += step.finish >= Finish.SYNC
                written += step.size - step.position
                if step.finish >= Finish.SYNC:
                    self._dirty = False
            else:
                self._segments.add(step)
        # Observed here, on the loop, not in the I/O thread: the thread's time is the
        # appends' latency, and the histograms' locks would be on it.
        if syncs:
            metrics.SYNC_SECONDS.observe(job.seconds)
        if job.op is None:
            metrics.GROUP_COMMIT_APPENDS.observe(len(job.futures))
        if written:
            metrics.WRITTEN_BYTES.inc(written)
        stats = self._stats
        self._stats = LogStats(
            stats.appends + (len(job.futures) if job.op is None else 0),
            stats.records + job.records,
            stats.writes + writes,
            stats.syncs + syncs,
            stats.bytes_written + written,
        )
        if job.op is _Op.CLOSE:
            self._cancel_flush_timer()
        elif written and self._config.durability != "fsync":
            self._dirty = True
            if self._config.durability == "interval" and self._flush_timer is None:
                delay_s = self._config.flush_interval_ms / 1000
                self._flush_timer = self._loop.call_later(delay_s, self._flush_due)

    # -- timers and failure -------------------------------------------------------------

    def _flush_due(self) -> None:
        self._flush_timer = None
        if self._failure is None and self._dirty:
            self._submit(_Op.FLUSH).add_done_callback(_ignore_result)

    def _cancel_flush_timer(self) -> None:
        if self._flush_timer is not None:
            self._flush_timer.cancel()
            self._flush_timer = None

    def _fail(self, error: BaseException, job: _Job) -> None:
        """Fail ``job`` and everything after it; what was committed stays acknowledged."""
        if isinstance(self._failure, LogStorageError):
            failure = self._failure  # a later round, already failed with the first
        else:
            failure = LogStorageError(f"writing {self._directory} failed: {error}")
            failure.__cause__ = error
            exc_info = None if isinstance(error, OSError) else error
            log.error("partition log %s failed: %s", self._directory, error, exc_info=exc_info)
            self._failure = failure
        self._cancel_flush_timer()
        futures = list(job.futures)
        futures += (future for later in self._in_flight for future in later.futures)
        futures += self._futures
        futures += (future for _, _, future in self._commands)
        self._batches.clear()
        self._futures.clear()
        self._commands.clear()
        for future in futures:
            if not future.done():
                future.set_exception(failure)


def _resolve(futures: list[asyncio.Future[int]], offsets: list[int]) -> None:
    for future, offset in zip(futures, offsets, strict=True):
        if not future.done():  # a caller may have given up waiting
            future.set_result(offset)


def _ignore_result(future: asyncio.Future[int]) -> None:
    if not future.cancelled():
        future.exception()  # retrieved: a failed background flush already failed the log
