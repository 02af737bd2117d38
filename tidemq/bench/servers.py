"""The processes `tidemq bench` measures: the embedded stack (`tidemq up`) and the
ceiling app, each in its own process on a free loopback port, as in production.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path

from tidemq.bench.ceiling import READY_LINE

BANNER_END = "Stop with Ctrl-C"
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 20.0
ACCESS_KEY_ID = "TQBENCHADMINKEY00001"
SECRET_ACCESS_KEY = "bench-secret-" + "0123456789abcdef" * 2
_TOKEN_LINE = re.compile(r"^\s*token\s+(tqb_\S+)\s*$", re.MULTILINE)


class BenchError(RuntimeError):
    """The bench cannot run; the message says why."""


@dataclass(frozen=True)
class Credentials:
    access_key_id: str
    secret_access_key: str
    token: str


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


class ServerProcess:
    """A child process whose output goes to a log file, ready once a line appears there."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log_path: Path) -> None:
        self.name = name
        self.log_path = log_path
        with log_path.open("wb") as log_file:
            self.process = subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
                argv, env=env, stdout=log_file, stderr=subprocess.STDOUT, cwd=os.getcwd()
            )

    @property
    def pid(self) -> int:
        return self.process.pid

    def wait_for(self, line: str, timeout_s: float = START_TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if line in self.output():
                return
            if self.process.poll() is not None:
                raise BenchError(
                    f"{self.name} exited with code {self.process.returncode} before it was "
                    f"ready; its output:\n{self.output()[-4000:]}"
                )
            time.sleep(0.05)
        self.stop()
        raise BenchError(
            f"{self.name} was not ready within {timeout_s:.0f} s; its output:\n"
            f"{self.output()[-4000:]}"
        )

    def output(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_stack(
    work_dir: Path, settings: Mapping[str, str] | None = None
) -> tuple[ServerProcess, str, Credentials]:
    """`tidemq up` on a free port with a fresh data directory under `work_dir`, `fsync`
    durability and admin credentials of our own (and `settings`, from
    `server_settings`); then a bearer token from it."""
    data_dir = work_dir / "data"
    port = free_port()
    env = stack_env(data_dir, port, settings)
    server = ServerProcess(
        "tidemq up",
        [sys.executable, "-m", "tidemq.cli", "up"],
        env,
        work_dir / "tidemq-up.log",
    )
    try:
        server.wait_for(BANNER_END)
        token = make_token(data_dir, env)
    except BaseException:
        server.stop()
        raise
    endpoint = f"http://127.0.0.1:{port}"
    return server, endpoint, Credentials(ACCESS_KEY_ID, SECRET_ACCESS_KEY, token)


def stack_env(
    data_dir: Path, port: int, settings: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of a `tidemq up` to measure: no TIDEMQ_* of the developer's (they
    must not change what is measured, unnoticed), loopback, `port`, `data_dir`, `fsync`
    durability and the bench's admin credentials; and `settings`, the ones asked for by
    name (`server_settings`)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("TIDEMQ_")}
    env.update(settings or {})
    env.update(_bench_own(data_dir, port))
    return env


def _bench_own(data_dir: Path, port: int) -> dict[str, str]:
    """The settings the bench sets itself: a --setting cannot change these."""
    return {
        "TIDEMQ_HOST": "127.0.0.1",
        "TIDEMQ_PORT": str(port),
        "TIDEMQ_DATA_DIR": str(data_dir),
        "TIDEMQ_ACCESS_KEY_ID": ACCESS_KEY_ID,
        "TIDEMQ_SECRET_ACCESS_KEY": SECRET_ACCESS_KEY,
        "TIDEMQ_DURABILITY": "fsync",
    }


def server_settings(pairs: Sequence[str]) -> dict[str, str]:
    """`--setting TIDEMQ_NAME=VALUE` pairs as the measured `tidemq up`'s environment, each
    checked as `tidemq up` checks its own; BenchError says what is wrong. For measuring
    a setting against its default (docs/performance.md, "Running it")."""
    from tidemq.settings import Settings, SettingsError  # noqa: PLC0415 - only when given

    own = _bench_own(Path(), 0)
    settings: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.startswith("TIDEMQ_") or not value:
            raise BenchError(f"--setting takes TIDEMQ_NAME=VALUE, not {pair!r}")
        if name in own:
            raise BenchError(f"--setting cannot change {name}: the bench sets it")
        settings[name] = value
    known = {"TIDEMQ_" + field.name.upper() for field in fields(Settings)}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise BenchError(f"--setting: no such setting {', '.join(unknown)}")
    try:
        Settings.load(env=settings)
    except SettingsError as exc:
        raise BenchError(f"--setting: {exc}") from exc
    return settings


def make_token(data_dir: Path, env: dict[str, str]) -> str:
    """A bearer token from `tidemq keys token`, against the Redis of `data_dir`'s stack."""
    done = subprocess.run(  # noqa: S603 - our own interpreter and arguments
        [sys.executable, "-m", "tidemq.cli", "keys", "token", "--data-dir", str(data_dir)],
        env=env,
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT_S,
        check=False,
    )
    found = _TOKEN_LINE.search(done.stdout)
    if done.returncode != 0 or found is None:
        raise BenchError(
            f"`tidemq keys token` failed (exit {done.returncode}): {done.stderr or done.stdout}"
        )
    return found.group(1)


def start_ceiling(work_dir: Path) -> tuple[ServerProcess, str]:
    port = free_port()
    server = ServerProcess(
        "ceiling app",
        [sys.executable, "-m", "tidemq.bench.ceiling", "--port", str(port)],
        dict(os.environ),
        work_dir / "ceiling.log",
    )
    server.wait_for(READY_LINE)
    return server, f"http://127.0.0.1:{port}"
