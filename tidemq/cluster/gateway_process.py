"""`tidemq gateway`: a gateway of a cluster, with no storage of its own (docs/cluster.md).

It serves the same APIs as `tidemq up` on host:port, over the cluster's Redis
(TIDEMQ_REDIS_URL) and nodes: each partition's work goes to its lease holder
(routing_node.py). Every gateway of a cluster must have the same master key
(TIDEMQ_MASTER_KEY, or <data dir>/master.key), the key access-key secrets are sealed
under. With TIDEMQ_ACCESS_KEY_ID and TIDEMQ_SECRET_ACCESS_KEY set, it registers them as
the default account's admin key, as `tidemq up` does.

SIGTERM or SIGINT: uvicorn drains the requests in progress, the gateway deregisters,
exit code 0.
"""

from __future__ import annotations

import asyncio
import logging
import sys

from control_plane.access_keys import DEFAULT_ACCOUNT_ID
from control_plane.errors import ControlPlaneError
from tidemq.admin_key import register_admin_key
from tidemq.cluster.node_process import new_process_id
from tidemq.credentials import Credentials
from tidemq.embedded import (
    LaunchError,
    check_port_free,
    gateway_app,
    graceful_signals,
    uvicorn_config,
)
from tidemq.http_server import GatewayServer
from tidemq.master_key import load_master_key
from tidemq.settings import Settings, SettingsError
from tidemq.stack import ClusterGateway

log = logging.getLogger(__name__)


def run(settings: Settings) -> None:
    redis_url = settings.redis_url
    if redis_url is None:
        raise SettingsError(
            "tidemq gateway needs the cluster's Redis: set TIDEMQ_REDIS_URL (redis://host:port)"
        )
    data_dir = settings.data_dir.resolve()
    master_key = load_master_key(settings.master_key, data_dir)
    if master_key is None:
        raise SettingsError(
            "tidemq gateway needs the cluster's master key: set TIDEMQ_MASTER_KEY (the same "
            f"for every gateway) or put it in {data_dir / 'master.key'}"
        )
    with graceful_signals():
        check_port_free(settings.host, settings.port)
        if settings.access_key_id and settings.secret_access_key:
            credentials = Credentials(settings.access_key_id, settings.secret_access_key)
            try:
                asyncio.run(register_admin_key(redis_url, master_key, credentials))
            except ControlPlaneError as exc:
                raise LaunchError(f"cannot register the admin access key: {exc}") from exc
        endpoint = f"http://{settings.host}:{settings.port}"
        gateway_id = new_process_id("gateway")
        app = gateway_app(
            settings,
            redis_url,
            data_dir,
            master_key,
            ClusterGateway(gateway_id, settings.lease_ttl_ms, settings.node_request_timeout_ms),
        )
        banner = "\n".join(
            [
                "",
                "TideMQ gateway is up.",
                f"  gateway id         {gateway_id}",
                f"  endpoint           {endpoint}",
                f"  account id         {DEFAULT_ACCOUNT_ID}",
                f"  redis              {redis_url}",
                "Stop with Ctrl-C.",
                "",
            ]
        )
        server = GatewayServer(
            uvicorn_config(app, settings),
            on_started=lambda: _print(banner),
            accept_per_round=settings.accept_per_round,
        )
        server.run()
    log.info("TideMQ gateway stopped")


def _print(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
