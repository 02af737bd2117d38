"""The test harness: real servers on free loopback ports, never mocks.

- `redis_server`: one redis-server (or the bundled Valkey) for the whole run, AOF on;
  `redis_url` gives each test an empty database on it.
- `redis_cluster`: a Redis Cluster of three masters from the same binary, for the whole
  run (started by the first test that asks for it); `redis_cluster_url` empties it. The
  control plane's tests run on both (tests/control_plane/conftest.py); the rest run on
  the cluster with TIDEMQ_TEST_REDIS=cluster in the environment.
- `s3_endpoint`: moto's S3 server, in-process on its own port, for the whole run.
- `s3_server`: moto's S3 server as a child process (`python -m moto.server`) on its own
  port, for the whole run: what the archive's tests talk to, over real HTTP, so nothing
  of the server shares the tests' interpreter. `make_s3_server` starts more, each
  stopped with its test (or earlier by the test, to see a store go away).
- `gateway`: the full gateway stack (control plane + storage node + Starlette app) under
  a real uvicorn on a free port, with a fresh data directory per test, and the access key
  TEST_ACCESS_KEY_ID / TEST_SECRET_ACCESS_KEY registered for the default account.
- `sqs`: a real boto3 SQS client pointed at that gateway, signing with that key;
  `sns`: a real boto3 SNS client, the same way.
- `make_access_key`, `account_sqs`: factories of more keys, and of clients signing with
  a new key of a given account.
- `tidemq_up`: a factory that runs the real `tidemq up` command as a subprocess;
  `module_tidemq_up` the same, its servers shared by a test module's tests.
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import boto3
import pytest
import uvicorn
from moto.server import ThreadedMotoServer

from control_plane.access_keys import DEFAULT_ACCOUNT_ID, AccessKeys, IssuedKey
from control_plane.clock import Clock, SystemClock
from control_plane.redis_client import open_redis
from control_plane.secret_box import SecretBox
from gateway.admission import AdmissionLimits
from tests.redis_cluster import LocalRedisCluster, flush_all
from tidemq.http_protocol import DEFAULT_READ_TIMEOUT_S, with_read_timeout
from tidemq.redis_server import RedisServer, RedisServerConfig, free_port
from tidemq.stack import ArchiveOptions, build_app

REGION = "us-east-1"
_T = TypeVar("_T")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a pytest-xdist worker, refuse tests that share a test id: the workers run each
    id once, so all but one would silently not run. Mark them `alone` (pyproject.toml)."""
    if not hasattr(config, "workerinput"):
        return
    ids = Counter(item.nodeid for item in items)
    shared = sorted(nodeid for nodeid, count in ids.items() if count > 1)
    if shared:
        raise pytest.UsageError(
            f"tests sharing an id would run once in parallel: mark them alone: {shared}"
        )


@pytest.fixture(autouse=True)
def _root_logger_left_as_found() -> Iterator[None]:
    """A test that runs the CLI in-process (`tidemq.cli.main`) configures the root logger:
    a handler on the standard error pytest captured for that test. Left there, a record
    logged later in the same process (by a gateway thread still closing, say) goes to
    that closed stream, and logging prints a traceback into the run's output."""
    root = logging.getLogger()
    level = root.level
    yield
    for handler in root.handlers[:]:
        if type(handler) is logging.StreamHandler:  # not pytest's own (subclasses)
            root.removeHandler(handler)
    root.setLevel(level)


# The key every started gateway accepts, for the default account.
TEST_ACCESS_KEY_ID = "TQTESTACCESSKEY00001"
TEST_SECRET_ACCESS_KEY = "test-secret-access-key"
TEST_ACCOUNT_ID = DEFAULT_ACCOUNT_ID
# Every test gateway seals secrets under this key, so a restarted one reads the same keys.
TEST_MASTER_KEY = bytes(range(32))


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(RedisServerConfig(tmp_path_factory.mktemp("redis")))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis_url(request: pytest.FixtureRequest) -> str:
    """An empty database on the session's Redis; on its Redis Cluster instead when the
    environment says TIDEMQ_TEST_REDIS=cluster (the gateways' tests then run on one)."""
    if os.environ.get("TIDEMQ_TEST_REDIS") == "cluster":
        return str(request.getfixturevalue("redis_cluster_url"))
    server: RedisServer = request.getfixturevalue("redis_server")
    flush_all(server.url)
    return server.url


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalRedisCluster]:
    """A Redis Cluster of three masters, started on first use, for the whole run."""
    cluster = LocalRedisCluster(tmp_path_factory.mktemp("redis-cluster"))
    cluster.start()
    yield cluster
    cluster.stop()


@pytest.fixture
def redis_cluster_url(redis_cluster: LocalRedisCluster) -> str:
    """The session's Redis Cluster, emptied: `redis+cluster://127.0.0.1:<port>`."""
    redis_cluster.flush()
    return redis_cluster.url


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


@dataclass
class MotoProcess:
    """moto's S3 server in a child process; `endpoint_url` is `http://127.0.0.1:<port>`."""

    endpoint_url: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def stop(self) -> None:
        """Stops the server (SIGTERM, then SIGKILL) and waits for it; idempotent."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_moto_server(log_path: Path, timeout_s: float = 30.0) -> MotoProcess:
    """Starts `python -m moto.server` on a free loopback port; returns once it answers."""
    port = free_port()
    with log_path.open("wb") as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            stdout=log_file,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent,  # noqa: PLW1509 - only a prctl call
        )
    server = MotoProcess(f"http://127.0.0.1:{port}", process, log_path)
    deadline = time.monotonic() + timeout_s
    while True:
        if process.poll() is not None:
            raise RuntimeError(
                f"moto server exited with {process.returncode}:\n{log_path.read_text()}"
            )
        try:
            with urllib.request.urlopen(f"{server.endpoint_url}/moto-api/data.json", timeout=1):
                return server
        except OSError as exc:  # not listening yet (HTTPError, too, is an OSError)
            if isinstance(exc, urllib.error.HTTPError):
                exc.close()
            if time.monotonic() > deadline:
                server.stop()
                raise RuntimeError(f"moto server did not answer in {timeout_s} s") from exc
            time.sleep(0.05)


def _die_with_parent() -> None:
    """In the child: be sent SIGTERM when pytest dies, so no server outlives a killed run."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
    except OSError:
        return  # not glibc Linux: the fixtures' own teardown still stops the server
    libc.prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MotoProcess]:
    server = start_moto_server(tmp_path_factory.mktemp("moto") / "moto.log")
    yield server
    server.stop()


MakeS3Server = Callable[[], MotoProcess]


@pytest.fixture
def make_s3_server(tmp_path: Path) -> Iterator[MakeS3Server]:
    """`make_s3_server()`: a moto server of the test's own, which the test may stop."""
    started: list[MotoProcess] = []

    def start() -> MotoProcess:
        server = start_moto_server(tmp_path / f"moto-{len(started)}.log")
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@dataclass
class RunningGateway:
    url: str
    data_dir: Path
    redis_url: str
    server: uvicorn.Server
    thread: threading.Thread
    archive: ArchiveOptions | None = None  # as given to start_gateway

    def sqs_client(self, **config: Any) -> Any:
        return sqs_client(self.url, **config)

    def sns_client(self, **config: Any) -> Any:
        return sns_client(self.url, **config)

    def create_key(
        self,
        account_id: str = TEST_ACCOUNT_ID,
        access_key_id: str | None = None,
        secret_access_key: str | None = None,
    ) -> IssuedKey:
        """Registers a key the gateway accepts (generated unless id and secret are given)."""
        return asyncio.run(
            _with_access_keys(
                self.redis_url,
                lambda keys: keys.create(account_id, access_key_id, secret_access_key),
            )
        )

    def put_key(self, account_id: str, access_key_id: str, secret_access_key: str) -> IssuedKey:
        """Makes the key exist with this secret, replacing the one it had."""
        key = asyncio.run(
            _with_access_keys(
                self.redis_url,
                lambda keys: keys.put(account_id, access_key_id, secret_access_key),
            )
        )
        return IssuedKey(key, secret_access_key)

    def revoke_key(self, access_key_id: str) -> None:
        asyncio.run(_with_access_keys(self.redis_url, lambda keys: keys.revoke(access_key_id)))

    def client_for(self, issued: IssuedKey, **config: Any) -> Any:
        return self.sqs_client(
            access_key_id=issued.key.access_key_id,
            secret_access_key=issued.secret_access_key,
            **config,
        )

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)
        assert not self.thread.is_alive(), "gateway did not shut down"


def sqs_client(endpoint_url: str, **config: Any) -> Any:
    return boto3.client(
        "sqs",
        endpoint_url=endpoint_url,
        region_name=REGION,
        aws_access_key_id=config.pop("access_key_id", TEST_ACCESS_KEY_ID),
        aws_secret_access_key=config.pop("secret_access_key", TEST_SECRET_ACCESS_KEY),
        **config,
    )


# The AWS CLI (v1) the test extra installs beside this interpreter.
AWS_CLI = str(Path(sys.executable).with_name("aws"))


def sns_client(endpoint_url: str, **config: Any) -> Any:
    return boto3.client(
        "sns",
        endpoint_url=endpoint_url,
        region_name=REGION,
        aws_access_key_id=config.pop("access_key_id", TEST_ACCESS_KEY_ID),
        aws_secret_access_key=config.pop("secret_access_key", TEST_SECRET_ACCESS_KEY),
        **config,
    )


async def _with_access_keys(redis_url: str, action: Callable[[AccessKeys], Awaitable[_T]]) -> _T:
    redis = open_redis(redis_url)
    try:
        return await action(AccessKeys(redis, SystemClock(), SecretBox(TEST_MASTER_KEY)))
    finally:
        await redis.aclose()


def start_gateway(
    redis_url: str,
    data_dir: Path,
    *,
    clock: Clock | None = None,
    auth_clock: Clock | None = None,
    max_message_bytes: int = 1024 * 1024,
    archive: ArchiveOptions | None = None,
    metrics_max_queues: int = 1_000,
    metrics_token: str | None = None,
    admission: AdmissionLimits | None = None,
) -> RunningGateway:
    """Starts the stack with TEST_ACCESS_KEY_ID / TEST_SECRET_ACCESS_KEY registered.

    `clock` times messages; `auth_clock` checks request dates (default: the real clock).
    """
    asyncio.run(
        _with_access_keys(
            redis_url,
            lambda keys: keys.put(TEST_ACCOUNT_ID, TEST_ACCESS_KEY_ID, TEST_SECRET_ACCESS_KEY),
        )
    )
    port = free_port()
    app = build_app(
        redis_url,
        data_dir,
        master_key=TEST_MASTER_KEY,
        clock=clock,
        auth_clock=auth_clock,
        max_message_bytes=max_message_bytes,
        archive=archive,
        advertised_url=f"http://127.0.0.1:{port}",
        metrics_max_queues=metrics_max_queues,
        metrics_token=metrics_token,
        admission=admission,
    )
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        # The gateway's own HTTP protocol, as `tidemq up` serves it (tidemq/embedded.py):
        # its request deadline, its rounds, its answer to what its parser refuses.
        http=with_read_timeout(DEFAULT_READ_TIMEOUT_S),
        lifespan="on",
        log_config=None,
        access_log=False,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=f"gateway-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("gateway did not start")
        time.sleep(0.01)
    return RunningGateway(f"http://127.0.0.1:{port}", data_dir, redis_url, server, thread, archive)


@pytest.fixture
def gateway(redis_url: str, tmp_path: Path) -> Iterator[RunningGateway]:
    running = start_gateway(redis_url, tmp_path / "data")
    yield running
    running.stop()


@pytest.fixture
def sqs(gateway: RunningGateway) -> Any:
    return gateway.sqs_client()


@pytest.fixture
def sns(gateway: RunningGateway) -> Any:
    return gateway.sns_client()


MakeAccessKey = Callable[..., IssuedKey]


@pytest.fixture
def make_access_key(gateway: RunningGateway) -> MakeAccessKey:
    """`make_access_key(account_id="...", access_key_id=None, secret_access_key=None)`."""
    return gateway.create_key


AccountSqs = Callable[[str], Any]


@pytest.fixture
def account_sqs(gateway: RunningGateway) -> AccountSqs:
    """`account_sqs("111122223333")`: a boto3 client signing with a new key of that account."""

    def client(account_id: str) -> Any:
        return gateway.client_for(gateway.create_key(account_id))

    return client


@dataclass
class TidemqProcess:
    """A `tidemq up` child process, started and checked the way a user would.

    Its output is read all the time by a thread into `output` (a server whose pipe
    nobody reads blocks on its next log line once the pipe is full)."""

    process: subprocess.Popen[str]
    banner: dict[str, str] = field(default_factory=dict)
    output: list[str] = field(default_factory=list)
    _reader: threading.Thread | None = None

    @property
    def endpoint(self) -> str:
        return self.banner["endpoint"]

    @property
    def text(self) -> str:
        """Everything it printed so far."""
        return "".join(self.output)

    def sqs_client(self) -> Any:
        return sqs_client(
            self.endpoint,
            access_key_id=self.banner["access key id"],
            secret_access_key=self.banner["secret access key"],
        )

    def sns_client(self) -> Any:
        return sns_client(
            self.endpoint,
            access_key_id=self.banner["access key id"],
            secret_access_key=self.banner["secret access key"],
        )

    def aws_cli(self, home: Path) -> Callable[..., Any]:
        """`aws(service, *args)`: runs the AWS CLI against this server, configured as the
        banner tells users to (credentials in the environment; nothing read from `home`),
        and returns its JSON output."""
        env = {
            **os.environ,
            "AWS_ACCESS_KEY_ID": self.banner["access key id"],
            "AWS_SECRET_ACCESS_KEY": self.banner["secret access key"],
            "AWS_DEFAULT_REGION": REGION,
            "AWS_CONFIG_FILE": str(home / "none"),
            "AWS_SHARED_CREDENTIALS_FILE": str(home / "none"),
        }
        command = [AWS_CLI, "--endpoint-url", self.endpoint, "--output", "json"]

        def aws(service: str, *args: str) -> Any:
            result = subprocess.run(
                [*command, service, *args],
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert result.returncode == 0, result.stderr
            return json.loads(result.stdout) if result.stdout.strip() else {}

        return aws

    def redis_pid(self) -> int:
        match = re.search(r"pid (\d+)", self.banner["redis"])
        assert match, self.banner["redis"]
        return int(match.group(1))

    def read_on(self) -> None:
        """Reads the rest of its output in a thread, until it exits."""
        stdout = self.process.stdout
        assert stdout is not None
        self._reader = threading.Thread(
            target=lambda: self.output.extend(iter(stdout.readline, "")), daemon=True
        )
        self._reader.start()

    def wait(self, timeout_s: float = 30) -> int:
        """Its exit code once it has exited; the output is then all in `output`."""
        try:
            self.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self._reader is not None:
            self._reader.join(timeout=10)
        return self.process.returncode

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Sends `sig` and returns the exit code; the output is kept in `output`."""
        self.process.send_signal(sig)
        return self.wait()


TidemqUp = Callable[..., TidemqProcess]


@contextmanager
def tidemq_up_factory(default_dir: Path) -> Iterator[TidemqUp]:
    """`start(data_dir=None, port=None, settings=None, args=())` runs a `tidemq up` (data
    under `default_dir` unless given; `args` more command-line arguments, such as
    `--nodes 3`); every one started is killed at the end."""
    started: list[TidemqProcess] = []

    def start(
        data_dir: Path | None = None,
        port: int | None = None,
        settings: Mapping[str, str] | None = None,
        args: Sequence[str] = (),
    ) -> TidemqProcess:
        """`settings`: more TIDEMQ_* variables for it."""
        env = {
            **os.environ,
            "TIDEMQ_PORT": str(port or free_port()),
            "TIDEMQ_DATA_DIR": str(data_dir or default_dir / "tidemq"),
            "PYTHONUNBUFFERED": "1",
            **(settings or {}),
        }
        process = subprocess.Popen(
            [sys.executable, "-m", "tidemq.cli", "up", *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        child = TidemqProcess(process)
        started.append(child)
        try:
            child.banner = _read_banner(child, timeout_s=60)
        except RuntimeError:
            _reap(child)
            raise
        child.read_on()
        return child

    try:
        yield start
    finally:
        for child in started:
            _reap(child)


@pytest.fixture
def tidemq_up(tmp_path: Path) -> Iterator[TidemqUp]:
    with tidemq_up_factory(tmp_path) as start:
        yield start


@pytest.fixture(scope="module")
def module_tidemq_up(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TidemqUp]:
    """`tidemq_up` for a whole test module: servers its tests share, where starting one
    for each test would cost more than the tests."""
    with tidemq_up_factory(tmp_path_factory.mktemp("tidemq-up")) as start:
        yield start


def _reap(child: TidemqProcess) -> None:
    """Kills the child if it still runs, and closes its pipe once all of it was read."""
    if child.process.poll() is None:
        child.process.kill()
    child.wait()
    if child.process.stdout is not None and not child.process.stdout.closed:
        child.process.stdout.close()


def _read_banner(child: TidemqProcess, timeout_s: float) -> dict[str, str]:
    """Reads the child's output until the banner is complete (or it dies)."""
    assert child.process.stdout is not None
    lines: list[str] = []
    timer = threading.Timer(timeout_s, child.process.kill)
    timer.start()
    try:
        for line in child.process.stdout:
            lines.append(line)
            if line.startswith("Stop with Ctrl-C"):
                break
    finally:
        timer.cancel()
    child.output.append("".join(lines))
    banner = {}
    for line in lines:
        match = re.match(r"^  ([a-z][a-z0-9 ]*?)\s{2,}(\S.*)$", line.rstrip("\n"))
        if match:
            banner[match.group(1)] = match.group(2)
    if "endpoint" not in banner:
        raise RuntimeError("tidemq up did not start:\n" + "".join(lines))
    return banner
