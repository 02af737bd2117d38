"""`tidemq up --nodes N --gateways M`: a cluster on this machine, for trying it out.

One Redis (embedded, unless TIDEMQ_REDIS_URL is set), one archive shared by every node
(<data dir>/archive unless TIDEMQ_ARCHIVE_URL is set), N `tidemq node` processes (data
under <data dir>/nodes/<i>, each on free ports: its node protocol's and its HTTP's) and
M `tidemq gateway` processes on consecutive ports from TIDEMQ_PORT. The children get
the launcher's TIDEMQ_* settings; it registers the admin credentials once and hands
every gateway the master key.

Start-up waits for each child's banner and then prints one banner for the whole
cluster; its `endpoint` is the first gateway. SIGINT or SIGTERM stop the gateways, then
the nodes (each hands its partitions over), then Redis. Every child is also told to stop
if the launcher dies (PR_SET_PDEATHSIG).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from control_plane.access_keys import DEFAULT_ACCOUNT_ID
from control_plane.errors import ControlPlaneError
from control_plane.secret_box import encode_master_key
from tidemq.admin_key import register_admin_key
from tidemq.credentials import Credentials, admin_credentials
from tidemq.embedded import LaunchError, check_port_free, graceful_signals, locked_data_dir
from tidemq.master_key import ensure_master_key
from tidemq.redis_server import RedisServer, RedisServerConfig, die_with_parent
from tidemq.settings import Settings, SettingsError

log = logging.getLogger(__name__)

_START_TIMEOUT_S = 60
_STOP_TIMEOUT_S = 30
# Settings the launcher sets per child; the credentials it registers itself.
_NOT_INHERITED = ("TIDEMQ_ACCESS_KEY_ID", "TIDEMQ_SECRET_ACCESS_KEY", "TIDEMQ_CONFIG")


@dataclass
class Child:
    """A node or gateway process and what its banner said."""

    role: str
    process: subprocess.Popen[str]
    banner: dict[str, str] = field(default_factory=dict)


def run(settings: Settings, nodes: int, gateways: int) -> None:
    if nodes < 1 or gateways < 1:
        raise SettingsError("a cluster needs at least one node (--nodes) and one gateway")
    data_dir = settings.data_dir.resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    with locked_data_dir(data_dir), graceful_signals() as stopping:
        for index in range(gateways):
            check_port_free(settings.host, settings.port + index)
        try:
            credentials = admin_credentials(
                data_dir, settings.access_key_id, settings.secret_access_key
            )
        except ValueError as exc:
            raise SettingsError(str(exc)) from exc
        master_key = ensure_master_key(settings.master_key, data_dir)
        redis = None
        redis_url = settings.redis_url
        if redis_url is None:
            redis = RedisServer(RedisServerConfig(data_dir / "redis"))
            redis.start()
            redis_url = redis.url
        children: list[Child] = []
        try:
            try:
                asyncio.run(register_admin_key(redis_url, master_key, credentials))
            except ControlPlaneError as exc:
                raise LaunchError(f"cannot register the admin access key: {exc}") from exc
            env = {
                **{k: v for k, v in os.environ.items() if k not in _NOT_INHERITED},
                **_settings_env(settings),
                "TIDEMQ_REDIS_URL": redis_url,
                "TIDEMQ_ARCHIVE_URL": settings.archive_url or str(data_dir / "archive"),
                "TIDEMQ_MASTER_KEY": encode_master_key(master_key),
                "PYTHONUNBUFFERED": "1",
            }
            for index in range(nodes):
                node_env = {
                    "TIDEMQ_DATA_DIR": str(data_dir / "nodes" / str(index + 1)),
                    # Any free ports (the banner says which), clear of the gateways'.
                    "TIDEMQ_NODE_PORT": "0",
                    "TIDEMQ_PORT": "0",
                }
                children.append(_start("node", {**env, **node_env}, stopping))
            for index in range(gateways):
                gateway_env = {
                    "TIDEMQ_DATA_DIR": str(data_dir / "gateways" / str(index + 1)),
                    "TIDEMQ_PORT": str(settings.port + index),
                }
                children.append(_start("gateway", {**env, **gateway_env}, stopping))
            _print_banner(children, credentials, data_dir, redis_url, redis)
            while not stopping():
                time.sleep(0.2)
        finally:
            _stop_all(children)
            if redis is not None:
                redis.stop()
    log.info("TideMQ cluster stopped")


def _settings_env(settings: Settings) -> dict[str, str]:
    """The launcher's settings (from flags, environment or file) as TIDEMQ_* variables,
    for the children; the ones it leaves at their defaults are left out."""
    defaults = Settings()
    env = {}
    for f in dataclasses.fields(settings):
        if f.name in ("access_key_id", "secret_access_key"):
            continue  # registered by the launcher
        value = getattr(settings, f.name)
        if value is not None and value != getattr(defaults, f.name):
            env[f"TIDEMQ_{f.name.upper()}"] = str(value)
    return env


def _start(role: str, env: Mapping[str, str], stopping: Callable[[], bool]) -> Child:
    process = subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
        [sys.executable, "-m", "tidemq.cli", role],
        env=dict(env),
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=die_with_parent(),  # noqa: PLW1509 - only a prctl call
        # Not in the launcher's process group: a Ctrl-C reaches the launcher alone, which
        # stops the gateways, then the nodes, then Redis, in that order.
        start_new_session=True,
    )
    child = Child(role, process)
    assert process.stdout is not None
    timer = threading.Timer(_START_TIMEOUT_S, process.kill)
    timer.start()
    try:
        for line in process.stdout:
            match = re.match(r"^  ([a-z ]+?)\s{2,}(\S.*)$", line.rstrip("\n"))
            if match:
                child.banner[match.group(1)] = match.group(2)
            if line.startswith("Stop with Ctrl-C"):
                break
    finally:
        timer.cancel()
    if "endpoint" not in child.banner or stopping():
        process.kill()
        process.wait()
        raise LaunchError(f"a {role} process did not start (exit code {process.returncode})")
    # Its stdout says nothing more of use (logs go to stderr, shared with the launcher),
    # but a pipe nobody reads would block it once full.
    stdout = process.stdout
    threading.Thread(target=lambda: [None for _ in stdout], daemon=True).start()
    return child


def _stop_all(children: list[Child]) -> None:
    """Gateways first (nothing new comes in), then the nodes, which hand over."""
    for role in ("gateway", "node"):
        group = [c for c in children if c.role == role and c.process.poll() is None]
        for child in group:
            child.process.send_signal(signal.SIGTERM)
        for child in group:
            try:
                child.process.wait(_STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                log.warning("%s %s did not stop; killing it", role, child.process.pid)
                child.process.kill()
                child.process.wait()


def _print_banner(
    children: list[Child],
    credentials: Credentials,
    data_dir: Path,
    redis_url: str,
    redis: RedisServer | None,
) -> None:
    gateways = [c.banner["endpoint"] for c in children if c.role == "gateway"]
    nodes = [c for c in children if c.role == "node"]
    redis_text = f"{redis_url} (embedded, pid {redis.pid})" if redis else redis_url
    lines = [
        "",
        f"TideMQ is up: a cluster of {len(nodes)} nodes and {len(gateways)} gateways.",
        f"  endpoint           {gateways[0]}",
        *(f"  gateway {i + 1:<10} {url}" for i, url in enumerate(gateways)),
        *(
            f"  node {i + 1:<13} {c.banner['endpoint']}, {c.banner['http']} (pid {c.process.pid})"
            for i, c in enumerate(nodes)
        ),
        "  region             us-east-1",
        f"  access key id      {credentials.access_key_id}",
        f"  secret access key  {credentials.secret_access_key}",
        f"  account id         {DEFAULT_ACCOUNT_ID}",
        f"  data dir           {data_dir}",
        f"  redis              {redis_text}",
        f"See it with: TIDEMQ_DATA_DIR={data_dir} tidemq cluster status",
        "Stop with Ctrl-C.",
        "",
    ]
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()
