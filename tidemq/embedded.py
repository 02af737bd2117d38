"""`tidemq up`: everything on one machine, with no setup (DESIGN.md section 8).

Start-up, in this order, each step undone in reverse on the way out:
  1. lock the data directory (two launchers on one directory would corrupt it);
  2. check the gateway port is free, before anything slow starts;
  3. start the embedded Redis (unless a Redis URL is configured);
  4. register the admin credentials as an access key of the default account, their
     secret sealed under the master key (TIDEMQ_MASTER_KEY or <data dir>/master.key);
  5. serve the gateway under uvicorn; its lifespan opens the control plane and the
     storage node and, on shutdown, fsyncs the logs and closes them;
  6. print the endpoint and credentials once the socket is listening.
SIGINT and SIGTERM stop it gracefully: uvicorn drains requests, the lifespan closes the
logs, then Redis is stopped (it writes its AOF). The exit code is 0.
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import os
import signal
import socket
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

import uvicorn
from starlette.applications import Starlette

from control_plane.access_keys import DEFAULT_ACCOUNT_ID
from control_plane.errors import ControlPlaneError
from gateway.admission import AdmissionLimits
from gateway.ws.endpoint import MAX_FRAME_BYTES
from tidemq.admin_key import register_admin_key
from tidemq.credentials import Credentials, admin_credentials
from tidemq.http_protocol import with_read_timeout
from tidemq.http_server import GatewayServer
from tidemq.master_key import ensure_master_key
from tidemq.redis_server import RedisServer, RedisServerConfig
from tidemq.redis_supervisor import RedisSupervisor
from tidemq.settings import Settings, SettingsError
from tidemq.stack import ClusterGateway, archive_options, build_app

log = logging.getLogger(__name__)

# How long a thread holding the GIL keeps it while another waits (CPython's default is
# 5 ms). The server's event loop runs Python almost all the time under load, so a log's
# I/O thread back from its fsync, or the loop back from a system call while a worker
# decodes records, waited up to this long for the GIL: most of the single-message p99
# in docs/performance.md. Shorter costs more switches, which a 2-core server can afford.
_GIL_SWITCH_INTERVAL_S = 0.0005
_WS_FRAMES_READ_AHEAD = 4


class LaunchError(RuntimeError):
    """tidemq up cannot start; the message tells the user what to do."""


def run(settings: Settings) -> None:
    data_dir = settings.data_dir.resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    with locked_data_dir(data_dir), graceful_signals() as stopping:
        check_port_free(settings.host, settings.port)
        try:
            credentials = admin_credentials(
                data_dir, settings.access_key_id, settings.secret_access_key
            )
        except ValueError as exc:
            raise SettingsError(str(exc)) from exc
        master_key = ensure_master_key(settings.master_key, data_dir)
        redis = None
        supervisor = None
        server: GatewayServer | None = None
        redis_url = settings.redis_url
        if redis_url is None:
            redis = RedisServer(RedisServerConfig(data_dir / "redis"))
            redis.start()
            redis_url = redis.url

            def give_up(reason: str) -> None:
                if server is not None:
                    server.should_exit = True

            supervisor = RedisSupervisor(redis, give_up)
            supervisor.start()
        try:
            if stopping():
                return
            try:
                asyncio.run(register_admin_key(redis_url, master_key, credentials))
            except ControlPlaneError as exc:
                raise LaunchError(f"cannot register the admin access key: {exc}") from exc
            app = gateway_app(settings, redis_url, data_dir, master_key)
            config = uvicorn_config(app, settings)
            banner = _banner(settings, data_dir, credentials, redis, redis_url)
            sys.setswitchinterval(_GIL_SWITCH_INTERVAL_S)  # process-wide: set here, once
            server = GatewayServer(
                config,
                on_started=lambda: _print_banner(banner),
                accept_per_round=settings.accept_per_round,
            )
            server.run()
        finally:
            if supervisor is not None:
                supervisor.stopping()
            if redis is not None:
                redis.stop()
            if supervisor is not None:
                supervisor.stop()
        if supervisor is not None and supervisor.failure is not None:
            raise LaunchError(supervisor.failure + "; start TideMQ again once that is fixed")
    log.info("TideMQ stopped")


def gateway_app(
    settings: Settings,
    redis_url: str,
    data_dir: Path,
    master_key: bytes,
    cluster: ClusterGateway | None = None,
) -> Starlette:
    """The gateway's application as the settings configure it: for `tidemq up`, and
    (with `cluster`) for `tidemq gateway`."""
    return build_app(
        redis_url,
        data_dir,
        master_key=master_key,
        durability=settings.durability,
        replication=settings.replication,
        public_url=settings.public_url,
        max_message_bytes=settings.max_message_bytes,
        archive=archive_options(settings),
        advertised_url=f"http://{settings.host}:{settings.port}",
        metrics_max_queues=settings.metrics_max_queues,
        metrics_token=settings.metrics_token,
        access_log=settings.access_log,
        admission=AdmissionLimits(
            settings.max_active_requests, settings.max_active_requests_per_caller
        ),
        cluster=cluster,
    )


def uvicorn_config(app: Starlette, settings: Settings) -> uvicorn.Config:
    """How a gateway is served: by `tidemq up`, and by `tidemq gateway`."""
    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        loop="uvloop",
        http=with_read_timeout(settings.request_read_timeout_s, settings.accept_per_round),
        limit_concurrency=settings.max_connections,
        ws_max_size=MAX_FRAME_BYTES,
        # Frames read ahead of the session per connection (uvicorn's default is
        # 32): a client flooding large frames holds at most this many in memory,
        # then TCP pushes back on it while its frames are handled one at a time.
        ws_max_queue=_WS_FRAMES_READ_AHEAD,
        # permessage-deflate declined: compressing every pushed frame on the event
        # loop was a fifth of its time under consume_ws (docs/performance.md), for
        # 256-byte messages on a LAN. RabbitMQ's Web STOMP has it off by default too.
        ws_per_message_deflate=False,
        lifespan="on",
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=10,
    )


@contextmanager
def graceful_signals() -> Iterator[Callable[[], bool]]:
    """Our SIGINT/SIGTERM handlers, under uvicorn's.

    uvicorn catches the signal while it serves, shuts down, then raises the signal again
    so an embedding program sees it; it lands here, and the launcher goes on to stop
    Redis and exit 0 instead of dying with a traceback half-way through cleaning up.
    """
    received: list[int] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if not received:
            log.info("stopping (signal %s)", signal.Signals(signum).name)
        received.append(signum)

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield lambda: bool(received)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextmanager
def locked_data_dir(data_dir: Path) -> Iterator[None]:
    path = data_dir / "tidemq.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
            raise LaunchError(
                f"{data_dir} is in use by another tidemq (pid {holder}); stop it, or pass "
                "--data-dir (TIDEMQ_DATA_DIR) to use another directory"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        os.close(fd)  # closing releases the lock


def check_port_free(host: str, port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            raise LaunchError(
                f"cannot listen on {host}:{port} ({exc.strerror}); stop what uses it, or "
                "pass --port (TIDEMQ_PORT) to listen elsewhere"
            ) from None


def _banner(
    settings: Settings,
    data_dir: Path,
    credentials: Credentials,
    redis: RedisServer | None,
    redis_url: str,
) -> str:
    endpoint = f"http://{settings.host}:{settings.port}"
    redis_text = f"{redis_url} (embedded, pid {redis.pid})" if redis else redis_url
    return "\n".join(
        [
            "",
            "TideMQ is up.",
            f"  endpoint           {endpoint}",
            "  region             us-east-1",
            f"  access key id      {credentials.access_key_id}",
            f"  secret access key  {credentials.secret_access_key}",
            f"  account id         {DEFAULT_ACCOUNT_ID}",
            f"  data dir           {data_dir}",
            f"  redis              {redis_text}",
            f"  archive            {settings.archive_url or data_dir / 'archive'}",
            "",
            "Use it from any AWS SDK or the AWS CLI with these variables and the endpoint:",
            f"  export AWS_ACCESS_KEY_ID={credentials.access_key_id} "
            f"AWS_SECRET_ACCESS_KEY={credentials.secret_access_key} AWS_DEFAULT_REGION=us-east-1",
            f"  aws --endpoint-url {endpoint} sqs list-queues",
            f"More keys, for this account or others: tidemq keys create --data-dir {data_dir}",
            "Stop with Ctrl-C.",
            "",
        ]
    )


def _print_banner(banner: str) -> None:
    sys.stdout.write(banner + "\n")
    sys.stdout.flush()
