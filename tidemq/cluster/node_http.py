"""A storage node's HTTP, for operators: `/healthz`, `/readyz` and `/metrics`.

`tidemq node` serves gateways over the binary node protocol (TIDEMQ_NODE_PORT); this is
what load balancers, Auto Scaling health checks and Prometheus scrapers reach instead,
on TIDEMQ_HOST:TIDEMQ_PORT (docs/operations.md):

- `GET /healthz`: 200 while the process serves, shutting down included (a node handing
  its partitions over must not be judged dead and replaced half-way);
- `GET /readyz`: 200 only while Redis answers and the node can take writes (its disk is
  not failing nor over its budget: `Node.problem()`) and it is not shutting down; 503
  with the reason otherwise;
- `GET /metrics`: the node's own metrics (storage_nodes/metrics.py: fsync latency, group
  commit sizes, log bytes, tiering) and the process' (CPU, memory, open files), in
  Prometheus' text format, or OpenMetrics when asked. With PROMETHEUS_MULTIPROC_DIR set,
  read from that directory's files as the gateway does. With TIDEMQ_METRICS_TOKEN set,
  a scrape must carry `Authorization: Bearer <token>`.

Served by uvicorn in the node's own event loop, started and stopped by node_process.py:
uvicorn's `serve()` is not used since it installs signal handlers over the node's own
(SIGTERM must reach the node's hand-over, in its order).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import os
import socket
from collections.abc import Callable, Iterator

import uvicorn
from prometheus_client import REGISTRY, CollectorRegistry
from prometheus_client.exposition import choose_encoder
from prometheus_client.metrics import MetricWrapperBase
from prometheus_client.metrics_core import Metric
from prometheus_client.multiprocess import MultiProcessCollector
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from control_plane.errors import ControlPlaneError
from control_plane.plane import ControlPlane
from gateway.metrics import MULTIPROC_DIR_ENV
from storage_nodes import metrics as node_metrics
from storage_nodes.node import Node
from tidemq.embedded import LaunchError

log = logging.getLogger(__name__)

# A readiness probe answers within this, even when Redis hangs instead of refusing.
_REDIS_PING_TIMEOUT_S = 2.0
# The process' own families (prometheus_client's default collectors), shown beside the
# node's; the gateway's metrics, defined in this process too by the imports, are not.
_PROCESS_PREFIXES = ("process_", "python_")
_NODE_FAMILIES = frozenset(
    metric._name  # prometheus_client keeps a family's name only there
    for metric in vars(node_metrics).values()
    if isinstance(metric, MetricWrapperBase)
)


class _NodeMetrics:
    """The node's families (and the process'), out of this process's registry or, in
    multiprocess mode, out of the directory's files."""

    def __init__(self) -> None:
        self._source: CollectorRegistry = REGISTRY
        if os.environ.get(MULTIPROC_DIR_ENV):
            self._source = CollectorRegistry(auto_describe=False)
            MultiProcessCollector(self._source)  # type: ignore[no-untyped-call]

    def collect(self) -> Iterator[Metric]:
        for family in self._source.collect():
            if family.name in _NODE_FAMILIES or family.name.startswith(_PROCESS_PREFIXES):
                yield family


def node_app(
    control: ControlPlane,
    storage: Node,
    *,
    stopping: Callable[[], bool],
    metrics_token: str | None,
) -> Starlette:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_NodeMetrics())

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(request: Request) -> Response:
        reason = await _not_ready(control, storage, stopping)
        if reason is not None:
            return JSONResponse({"status": "unavailable", "reason": reason}, status_code=503)
        return JSONResponse({"status": "ok"})

    async def metrics(request: Request) -> Response:
        if metrics_token is not None and not _authorized(request, metrics_token):
            return PlainTextResponse(
                "a metrics token is required: Authorization: Bearer <token>",
                status_code=401,
                headers={"www-authenticate": 'Bearer realm="tidemq-metrics"'},
            )
        encoder, content_type = choose_encoder(request.headers.get("accept", ""))
        # Off the loop: in multiprocess mode it reads files, and the loop serves appends.
        body = await asyncio.to_thread(encoder, registry)
        return Response(body, media_type=content_type)

    return Starlette(
        routes=[
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", metrics),
        ]
    )


async def _not_ready(
    control: ControlPlane, storage: Node, stopping: Callable[[], bool]
) -> str | None:
    if stopping():
        return "the node is shutting down: handing its partitions over"
    try:
        async with asyncio.timeout(_REDIS_PING_TIMEOUT_S):
            await control.ping()
    except ControlPlaneError as exc:
        return f"the control plane does not answer: {exc}"
    except TimeoutError:
        return f"the control plane did not answer within {_REDIS_PING_TIMEOUT_S:g} s"
    return storage.problem()


def _authorized(request: Request, token: str) -> bool:
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip(), token)


class NodeHttp:
    """The HTTP server of `node_app`, on host:port (port 0: any free one)."""

    def __init__(self, app: Starlette, host: str, port: int) -> None:
        config = uvicorn.Config(
            app,
            host=host,
            port=port,
            lifespan="off",
            log_config=None,
            access_log=False,
            # Probes and scrapes only: a few connections, each answered at once.
            limit_concurrency=64,
            timeout_graceful_shutdown=2,
        )
        config.load()
        self._server = uvicorn.Server(config)
        self._sockets: list[socket.socket] = []
        self._ticks: asyncio.Task[None] | None = None

    async def start(self) -> tuple[str, int]:
        """Listens; returns the address it listens on. LaunchError if it cannot."""
        server = self._server
        host, port = server.config.host, server.config.port
        # Bound here rather than by uvicorn, which exits the process when it cannot bind.
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        try:
            listener = socket.create_server((host, port), family=family)
        except OSError as exc:
            raise LaunchError(
                f"cannot serve HTTP on {host}:{port} ({exc.strerror}); stop what uses it, or "
                "pass --port (TIDEMQ_PORT) to listen elsewhere"
            ) from None
        self._sockets = [listener]
        # What uvicorn's serve() does, minus its signal handlers (see the docstring).
        server.lifespan = server.config.lifespan_class(server.config)
        await server.startup(sockets=self._sockets)
        self._ticks = asyncio.create_task(server.main_loop(), name="node-http")
        bound_host, bound_port = listener.getsockname()[:2]
        return str(bound_host), int(bound_port)

    async def close(self) -> None:
        if self._ticks is None:
            for listener in self._sockets:
                listener.close()
            return
        self._server.should_exit = True
        await self._ticks
        self._ticks = None
        await self._server.shutdown(sockets=self._sockets)
