"""`GET /metrics`: every metric in Prometheus' text format (or OpenMetrics, when the
scraper asks for it).

Two sources, one answer:
- what the processes counted (gateway/metrics.py, storage_nodes/metrics.py,
  control_plane/metrics.py): this process's registry or, with PROMETHEUS_MULTIPROC_DIR
  set, the files of every gateway process sharing that directory, added up;
- the census, read now from the control plane and the log (gateway/core/queue_census.py):
  each queue's depth and oldest message, each pushed subscription's lag. When it cannot
  be read (Redis down) the rest is still served, with `tidemq_census_up 0`.

Open by default, like `/healthz`. With a metrics token configured
(TIDEMQ_METRICS_TOKEN), a scrape must carry `Authorization: Bearer <token>`: the labels
name every account's queues.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import os
import time
from collections.abc import Iterable, Iterator

from prometheus_client import REGISTRY, CollectorRegistry
from prometheus_client.exposition import choose_encoder
from prometheus_client.metrics_core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from gateway.core.broker import Broker
from gateway.core.errors import CoreError
from gateway.core.queue_census import Census
from gateway.metrics import MULTIPROC_DIR_ENV

log = logging.getLogger(__name__)

PATH = "/metrics"
_QUEUE = ["account", "queue"]
_SUBSCRIPTION = ["account", "topic", "subscription", "protocol"]


class _Families:
    """A collector of metric families made before the scrape (the census)."""

    def __init__(self, families: Iterable[Metric]) -> None:
        self._families = list(families)

    def collect(self) -> Iterator[Metric]:
        return iter(self._families)


class _Counted:
    """What this process counted: its own registry."""

    def collect(self) -> Iterator[Metric]:
        return iter(REGISTRY.collect())


async def metrics_endpoint(request: Request) -> Response:
    token: str | None = request.app.state.metrics_token
    if token is not None and not _authorized(request, token):
        return PlainTextResponse(
            "a metrics token is required: Authorization: Bearer <token>",
            status_code=401,
            headers={"www-authenticate": 'Bearer realm="tidemq-metrics"'},
        )
    broker: Broker = request.app.state.broker
    started_s = time.perf_counter()
    census: Census | None = None
    try:
        census = await broker.census(request.app.state.metrics_max_queues)
    except CoreError as exc:
        log.warning("metrics: the census could not be taken: %s", exc.message)
    families = _census_families(census, time.perf_counter() - started_s)
    encoder, content_type = choose_encoder(request.headers.get("accept", ""))
    # Off the loop: with several processes it reads every process's files.
    body = await asyncio.to_thread(encoder, _registry(families))
    return Response(body, media_type=content_type)


def _authorized(request: Request, token: str) -> bool:
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip(), token)


def _registry(census: list[Metric]) -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    if os.environ.get(MULTIPROC_DIR_ENV):
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry.register(_Counted())
    registry.register(_Families(census))
    return registry


def _census_families(census: Census | None, seconds: float) -> list[Metric]:
    up = GaugeMetricFamily(
        "tidemq_census_up", "1 when the census of queues and subscriptions was read."
    )
    up.add_metric([], 0 if census is None else 1)
    took = GaugeMetricFamily(
        "tidemq_census_duration_seconds", "How long reading the census took, this scrape."
    )
    took.add_metric([], seconds)
    if census is None:
        return [up, took]
    visible = GaugeMetricFamily(
        "tidemq_queue_visible_messages", "Messages deliverable now.", labels=_QUEUE
    )
    in_flight = GaugeMetricFamily(
        "tidemq_queue_in_flight_messages",
        "Messages received and not deleted, visibility timeout not over.",
        labels=_QUEUE,
    )
    delayed = GaugeMetricFamily(
        "tidemq_queue_delayed_messages", "Messages whose delay has not elapsed.", labels=_QUEUE
    )
    oldest = GaugeMetricFamily(
        "tidemq_queue_oldest_message_age_seconds",
        "Age of the oldest message not yet deleted (absent when there is none).",
        labels=_QUEUE,
    )
    for queue in census.queues:
        labels = [queue.account_id, queue.name]
        visible.add_metric(labels, queue.visible)
        in_flight.add_metric(labels, queue.in_flight)
        delayed.add_metric(labels, queue.delayed)
        if queue.oldest_age_ms is not None:
            oldest.add_metric(labels, queue.oldest_age_ms / 1000)
    behind = GaugeMetricFamily(
        "tidemq_subscription_behind_messages",
        "Messages of the topic's log not yet delivered by a pushed subscription.",
        labels=_SUBSCRIPTION,
    )
    for lag in census.subscriptions:
        labels = [lag.account_id, lag.topic, lag.subscription_id, lag.protocol]
        behind.add_metric(labels, lag.behind)
    left_out = GaugeMetricFamily(
        "tidemq_census_left_out",
        "Queues and subscriptions past the census' cap (TIDEMQ_METRICS_MAX_QUEUES), not read.",
        labels=["kind"],
    )
    left_out.add_metric(["queue"], census.queues_left_out)
    left_out.add_metric(["subscription"], census.subscriptions_left_out)
    return [up, took, visible, in_flight, delayed, oldest, behind, left_out]
