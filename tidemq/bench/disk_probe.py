"""The disk's own sync latency, probed beside a latency workload.

Every step of a fixed-rate publish or of e2e_ws waits for a sync of the disk (the log's,
and for e2e_ws Redis's append-only file too), so their tails are the disk's tails as
much as the server's. On the 2-core VM these benchmarks run on, `fdatasync` of a small
append took ~0.2 ms at the median but stalled for 10-100 ms every few seconds with
nothing else running, and for seconds after a burst of writes (docs/performance.md,
"What the disk's syncs do"). So a latency row says what the disk did meanwhile: a thread
appends `PROBE_BYTES` to a file of its own in the bench's directory and syncs it every
`PROBE_INTERVAL_S`, timing each sync (about a hundred syncs a second: a twentieth of
what the server makes at 1 000 publishes a second).
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from types import TracebackType

from tidemq.bench.load import percentile

PROBE_INTERVAL_S = 0.01
PROBE_BYTES = 64
_FILE_NAME = ".tidemq-bench-disk-probe"


class DiskProbe:
    """`with DiskProbe(directory) as probe:` times a sync every PROBE_INTERVAL_S until the
    block ends; `probe.syncs_ms` then holds each sync's duration in ms."""

    def __init__(self, directory: Path, interval_s: float = PROBE_INTERVAL_S) -> None:
        self.path = directory / _FILE_NAME
        self.interval_s = interval_s
        self.syncs_ms: list[float] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._fd: int | None = None

    def __enter__(self) -> DiskProbe:
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_TRUNC, 0o600)
        self._thread = threading.Thread(target=self._run, name="bench-disk-probe", daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self.path.unlink(missing_ok=True)

    def _run(self) -> None:
        assert self._fd is not None
        record = b"x" * (PROBE_BYTES - 1) + b"\n"
        while not self._stop.wait(self.interval_s):
            os.write(self._fd, record)
            started = time.perf_counter()
            os.fdatasync(self._fd)
            self.syncs_ms.append((time.perf_counter() - started) * 1000)

    def percentile(self, q: float) -> float:
        """Of the syncs timed so far; NaN before the first."""
        return percentile(sorted(self.syncs_ms), q)

    @property
    def max_ms(self) -> float:
        return max(self.syncs_ms, default=float("nan"))
