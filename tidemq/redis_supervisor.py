"""Keeping the embedded Redis alive: restart it when it dies, or give up loudly.

A thread checks the child every `check_interval_s`. When it has exited (killed, out of
memory, crashed), the thread reaps it (no zombie) and starts it again on the same port
from its append-only file, which holds every acknowledged change (`appendfsync always`);
clients reconnect by themselves, and the gateway's subscriptions retry. If it dies more
than `max_restarts` times within `window_s`, something is wrong that restarting will not
fix: the supervisor calls `give_up` with the reason, and `tidemq up` exits non-zero so
that a service manager (systemd, a container runtime) can restart TideMQ whole.

The thread starts the child, so it must outlive it: Linux sends the child its death
signal (redis_server.py) when the thread that forked it ends. `stop()` is therefore
called after the server was stopped.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable

from tidemq.redis_server import RedisServer, RedisServerError

log = logging.getLogger(__name__)


class RedisSupervisor:
    def __init__(
        self,
        server: RedisServer,
        give_up: Callable[[str], None],
        *,
        check_interval_s: float = 0.2,
        max_restarts: int = 5,
        window_s: float = 60.0,
    ) -> None:
        self._server = server
        self._give_up = give_up
        self._check_interval_s = check_interval_s
        self._max_restarts = max_restarts
        self._window_s = window_s
        self._restarts: deque[float] = deque()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="redis-supervisor", daemon=True)
        self.failure: str | None = None

    def start(self) -> None:
        self._thread.start()

    def stopping(self) -> None:
        """The server is about to be stopped on purpose: its exit is no crash."""
        self._stopping.set()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join()

    def _watch(self) -> None:
        while not self._stopping.wait(self._check_interval_s):
            code = self._server.exit_code()
            if code is None or self._stopping.is_set():
                continue
            now = time.monotonic()
            while self._restarts and now - self._restarts[0] > self._window_s:
                self._restarts.popleft()
            if len(self._restarts) >= self._max_restarts:
                self._fail(
                    f"the embedded Redis died {len(self._restarts) + 1} times within "
                    f"{self._window_s:.0f} s (last exit status {code}); see its log in "
                    f"{self._server.config.data_dir / 'redis.log'}"
                )
                return
            log.error("the embedded Redis exited with status %s; restarting it", code)
            self._restarts.append(now)
            try:
                self._server.restart()
            except RedisServerError as exc:  # died while starting: counts as one more death
                log.error("%s", exc)

    def _fail(self, reason: str) -> None:
        log.error("%s; stopping TideMQ", reason)
        self.failure = reason
        self._give_up(reason)
