"""A one-line progress bar on stderr, redrawn in place: `tidemq send` from a file or
stdin, `tidemq redrive`. Drawn only where a person watches (stderr a terminal) unless
asked for, so that logs and pipes get no carriage returns."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

_WIDTH = 30
# Redraw at most this often: a bar redrawn per message would cost more than the sends.
_REDRAW_S = 0.1


class Progress:
    """`update(done)` redraws the bar (`total` None: a count and a rate, no bar);
    `finish()` ends its line."""

    def __init__(
        self,
        label: str,
        total: int | None,
        stream: TextIO | None = None,
        enabled: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label = label
        self.total = total
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.clock = clock
        self.started_s = clock()
        self._drawn_s = float("-inf")
        self.done = 0

    def update(self, done: int, force: bool = False) -> None:
        self.done = done
        now_s = self.clock()
        if not self.enabled or (not force and now_s - self._drawn_s < _REDRAW_S):
            return
        self._drawn_s = now_s
        rate = done / max(now_s - self.started_s, 1e-9)
        if self.total:
            filled = _WIDTH * min(done, self.total) // self.total
            bar = "#" * filled + "-" * (_WIDTH - filled)
            line = f"{self.label} [{bar}] {done}/{self.total} ({rate:.0f}/s)"
        else:
            line = f"{self.label} {done} ({rate:.0f}/s)"
        self.stream.write("\r" + line)
        self.stream.flush()

    def finish(self) -> None:
        if self.enabled:
            self.update(self.done, force=True)
            self.stream.write("\n")
            self.stream.flush()
