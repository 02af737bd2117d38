"""The load generator of `tidemq bench`: closed-loop workers (asyncio tasks, or threads for
boto3), an open-loop fixed-rate sender, the progress bar and the percentiles.

Every operation records when it started (in a fixed-rate run, when it was meant to start:
the schedule's time, so that latency is not understated when the sender falls behind),
when it ended and how many messages it carried.
A run has a warm-up (at most a fifth of the run, for runs their message bound ends
early): only operations that start after it count, and the rate is their messages over
the time from the end of the warm-up to the end of the last of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field

# One operation: returns the messages it carried (0: nothing to count, e.g. an empty
# receive). Raising counts an error; the worker goes on.
AsyncStep = Callable[[], Awaitable[int]]
SyncStep = Callable[[], int]
# An operation of a fixed-rate run, given the time (time.perf_counter) it was meant to be
# sent at, e.g. to put it into the message for an end-to-end measurement.
ScheduledStep = Callable[[float], Awaitable[int]]
UNANSWERED_AFTER_S = 30.0


@dataclass(frozen=True)
class Limits:
    max_messages: int  # every message handled counts, the warm-up's too
    seconds: float  # measured time, after the warm-up
    warmup_s: float


@dataclass
class Measured:
    messages: int
    seconds: float
    latencies_ms: list[float]
    errors: int
    first_error: str | None = None

    @property
    def msgs_per_s(self) -> float:
        return self.messages / self.seconds if self.seconds > 0 else 0.0

    def percentile(self, q: float) -> float:
        return percentile(sorted(self.latencies_ms), q)


def percentile(ordered: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of sorted samples; NaN without samples."""
    if not ordered:
        return math.nan
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


@dataclass
class Recorder:
    """Operations as they finish; shared by workers of one run (the GIL or the event loop
    makes the appends safe)."""

    start: float = field(default_factory=time.perf_counter)
    # (began, ended, messages): began is the intended send time in a fixed-rate run.
    ops: list[tuple[float, float, int]] = field(default_factory=list)
    handled: int = 0
    errors: int = 0
    first_error: str | None = None

    def done(self, began: float, ended: float, messages: int) -> None:
        self.ops.append((began, ended, messages))
        self.handled += messages

    def failed(self, exc: BaseException) -> None:
        self.errors += 1
        if self.first_error is None:
            self.first_error = f"{type(exc).__name__}: {exc}"

    def measured(self, warmup_s: float) -> Measured:
        if not self.ops:
            return Measured(0, 0.0, [], self.errors, self.first_error)
        # A run that its message bound ends early keeps 80 % of itself measured.
        last_end = max(op[1] for op in self.ops)
        window = self.start + min(warmup_s, 0.2 * (last_end - self.start))
        counted = [op for op in self.ops if op[0] >= window and op[2] > 0]
        if not counted:
            return Measured(0, 0.0, [], self.errors, self.first_error)
        end = max(op[1] for op in counted)
        return Measured(
            messages=sum(op[2] for op in counted),
            seconds=end - window,
            latencies_ms=[(op[1] - op[0]) * 1000 for op in counted],
            errors=self.errors,
            first_error=self.first_error,
        )


@contextlib.contextmanager
def progress(label: str, recorder: Recorder, total: int, seconds: float) -> Iterator[None]:
    """A one-line bar on stderr, redrawn four times a second from a thread: the larger of
    the message and the time fractions, since either bound can end the run."""
    stop = threading.Event()
    width = 30

    def draw(final: bool) -> None:
        elapsed = time.perf_counter() - recorder.start
        fraction = min(1.0, max(recorder.handled / max(total, 1), elapsed / max(seconds, 1e-9)))
        if final:
            fraction = 1.0
        bar = "#" * int(fraction * width)
        sys.stderr.write(
            f"\r  {label:<28} [{bar:<{width}}] {recorder.handled:>9,} msgs {elapsed:6.1f} s"
            + ("\n" if final else "")
        )
        sys.stderr.flush()

    def loop() -> None:
        while not stop.wait(0.25):
            draw(final=False)

    thread = threading.Thread(target=loop, name="bench-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        draw(final=True)


async def closed_loop(label: str, step: AsyncStep, workers: int, limits: Limits) -> Measured:
    """`workers` tasks, each doing `step` back to back, until `max_messages` are handled or
    the time is up. Operations still running then are cancelled and not counted."""
    recorder = Recorder()
    finished = asyncio.Event()
    deadline = recorder.start + limits.warmup_s + limits.seconds

    async def worker() -> None:
        while not finished.is_set():
            began = time.perf_counter()
            try:
                messages = await step()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                recorder.failed(exc)
                await asyncio.sleep(0.01)  # a failing server is not hammered in a tight loop
                continue
            recorder.done(began, time.perf_counter(), messages)
            if recorder.handled >= limits.max_messages:
                finished.set()

    with progress(label, recorder, limits.max_messages, limits.warmup_s + limits.seconds):
        tasks = [asyncio.create_task(worker()) for _ in range(workers)]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(finished.wait(), max(0.0, deadline - time.perf_counter()))
        finished.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return recorder.measured(limits.warmup_s)


async def open_loop(label: str, step: AsyncStep, rate: float, limits: Limits) -> Measured:
    """`scheduled_loop` for a step that needs no send time of its own."""

    async def scheduled(_intended_s: float) -> int:
        return await step()

    return await scheduled_loop(label, scheduled, rate, limits)


async def scheduled_loop(label: str, step: ScheduledStep, rate: float, limits: Limits) -> Measured:
    """Sends on a fixed schedule (`rate` operations a second) whatever the answers do: the
    open loop of wrk2. Each operation is timed from its *intended* send time (the
    schedule's, handed to the step too), not from when it actually went out, so queueing
    anywhere (a late event loop, the client's connection pool, the server) shows in the
    latency instead of slowing the offered rate down: no coordinated omission. A late
    schedule sends what is due at once. Operations still unanswered 30 s after the last
    send count as errors, not as missing samples."""
    recorder = Recorder()
    count = min(limits.max_messages, int(rate * (limits.warmup_s + limits.seconds)))
    interval = 1.0 / rate
    pending: set[asyncio.Task[None]] = set()

    async def one(intended_s: float) -> None:
        try:
            messages = await step(intended_s)
        except Exception as exc:
            recorder.failed(exc)
            return
        recorder.done(intended_s, time.perf_counter(), messages)

    with progress(label, recorder, count, limits.warmup_s + limits.seconds):
        sent = 0
        while sent < count:
            now = time.perf_counter()
            while sent < count and recorder.start + sent * interval <= now:
                task = asyncio.create_task(one(recorder.start + sent * interval))
                pending.add(task)
                task.add_done_callback(pending.discard)
                sent += 1
            if sent < count:
                await asyncio.sleep(max(0.0, recorder.start + sent * interval - now))
        if pending:
            await asyncio.wait(pending, timeout=UNANSWERED_AFTER_S)
            for task in list(pending):
                task.cancel()
                recorder.failed(TimeoutError(f"no answer {UNANSWERED_AFTER_S:.0f} s after"))
    return recorder.measured(limits.warmup_s)


def threaded_closed_loop(
    label: str, steps: list[SyncStep], limits: Limits, stop_when: Callable[[], bool] | None = None
) -> Measured:
    """One thread per step (each with its own client), back to back, until `max_messages`
    are handled or the time is up; calls in flight then finish and count."""
    recorder = Recorder()
    lock = threading.Lock()
    finished = threading.Event()
    deadline = recorder.start + limits.warmup_s + limits.seconds

    def worker(step: SyncStep) -> None:
        while not finished.is_set() and time.perf_counter() < deadline:
            began = time.perf_counter()
            try:
                messages = step()
            except Exception as exc:
                with lock:
                    recorder.failed(exc)
                time.sleep(0.01)
                continue
            with lock:
                recorder.done(began, time.perf_counter(), messages)
                if recorder.handled >= limits.max_messages or (stop_when and stop_when()):
                    finished.set()

    with progress(label, recorder, limits.max_messages, limits.warmup_s + limits.seconds):
        threads = [threading.Thread(target=worker, args=(step,), daemon=True) for step in steps]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return recorder.measured(limits.warmup_s)
