"""The gateway's Prometheus metrics: what the core counts per queue and topic, how long
requests take per API and action, and the WebSocket connections' state.

Every metric is defined once, here, at import. With `PROMETHEUS_MULTIPROC_DIR` set in
the environment before the process starts, prometheus_client keeps the values in files
of that directory, one set per process, and `/metrics` (gateway/metrics_endpoint.py)
adds up every process's; without it they live in this process's memory. The gauges of
queue depth are not here: they are read from the control plane when `/metrics` is
scraped (gateway/core/queue_census.py).

Counters are incremented by the core (gateway/core), never by a protocol, so a message
counts the same whichever API carried it. The hot path pays one dictionary lookup and
one locked add per counter and call (a batch counts once), never a label lookup:
`QueueSeries` keeps each queue's children.

Bounded: a process keeps the series of at most `max_queues` queues and as many topics
(TIDEMQ_METRICS_MAX_QUEUES, 1 000 by default); the counts of any further one go to the
series whose labels are `_other`, so an account with a hundred thousand queues costs
a thousand series, not a hundred thousand. A deleted queue's series are dropped (in
multiprocess mode they stay in the files until the process ends: prometheus_client
cannot remove a value there).

docs/operations.md lists every metric, its labels and its unit.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Generic, NamedTuple, TypeVar

from prometheus_client import Counter, Gauge, Histogram, multiprocess

# Set before the process starts: prometheus_client reads it once, at import.
MULTIPROC_DIR_ENV = "PROMETHEUS_MULTIPROC_DIR"
DEFAULT_MAX_QUEUES = 1_000
OTHER = "_other"  # the label value of the series past the cap

# -- partitions down (core; docs/cluster.md) --------------------------------------------

PARTITIONS_PASSED_OVER = Counter(
    "tidemq_partitions_passed_over",
    "Standard sends and publishes that went to another partition: the one tried was down.",
)
PARTITIONS_LEFT_OUT = Counter(
    "tidemq_partitions_left_out",
    "Partitions a receive or a topic's delivery round left out for now: they were down.",
)

# -- per queue (core) -------------------------------------------------------------------

_QUEUE = ("account", "queue")
SENT = Counter("tidemq_queue_sent_messages", "Messages appended to the queue.", _QUEUE)
SENT_BYTES = Counter(
    "tidemq_queue_sent_bytes", "Bytes of the bodies of the messages appended.", _QUEUE
)
RECEIVED = Counter(
    "tidemq_queue_received_messages",
    "Messages handed to a receiver (each delivery counts, redeliveries too).",
    _QUEUE,
)
RECEIVED_BYTES = Counter(
    "tidemq_queue_received_bytes", "Bytes of the bodies of the messages received.", _QUEUE
)
DELETED = Counter(
    "tidemq_queue_deleted_messages",
    "Messages deleted with a current receipt (a stale receipt deletes nothing).",
    _QUEUE,
)
DEAD_LETTERED = Counter(
    "tidemq_queue_dead_lettered_messages",
    "Messages moved from this queue to its dead-letter queue (maxReceiveCount reached).",
    _QUEUE,
)
EXPIRED = Counter(
    "tidemq_queue_expired_messages",
    "Messages removed unreceived past the queue's retention period.",
    _QUEUE,
)

# -- per topic (core) -------------------------------------------------------------------

_TOPIC = ("account", "topic")
PUBLISHED = Counter("tidemq_topic_published_messages", "Messages published.", _TOPIC)
PUBLISHED_BYTES = Counter(
    "tidemq_topic_published_bytes", "Bytes of the bodies of the messages published.", _TOPIC
)

# -- requests (each protocol's dispatch) ------------------------------------------------

# Up to 25 s: a long poll waits up to 20 s, and shows here as what it is.
_REQUEST_BUCKETS_S = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25,
)  # fmt: skip
REQUEST_SECONDS = Histogram(
    "tidemq_request_duration_seconds",
    "Time from a request's (or WebSocket frame's) arrival to its answer, by API and action.",
    ("api", "action", "outcome"),
    buckets=_REQUEST_BUCKETS_S,
)
UNKNOWN_ACTION = "unknown"  # an action no API knows: one series, whatever the client sent

# -- WebSocket connections (gateway/ws) -------------------------------------------------

WS_CONNECTIONS = Gauge(
    "tidemq_websocket_connections", "Open WebSocket connections.", multiprocess_mode="livesum"
)
WS_SUBSCRIPTIONS = Gauge(
    "tidemq_websocket_subscriptions",
    "Queue subscriptions on open WebSocket connections.",
    multiprocess_mode="livesum",
)
WS_CREDIT = Gauge(
    "tidemq_websocket_credit_messages",
    "Credit granted by the WebSocket subscriptions: messages they may hold unsettled.",
    multiprocess_mode="livesum",
)
WS_UNSETTLED = Gauge(
    "tidemq_websocket_unsettled_messages",
    "Messages pushed over WebSocket and not yet acked, nacked or lapsed.",
    multiprocess_mode="livesum",
)


class QueueCounters(NamedTuple):
    sent: Counter
    sent_bytes: Counter
    received: Counter
    received_bytes: Counter
    deleted: Counter
    dead_lettered: Counter
    expired: Counter


class TopicCounters(NamedTuple):
    published: Counter
    published_bytes: Counter


_QUEUE_METRICS = (SENT, SENT_BYTES, RECEIVED, RECEIVED_BYTES, DELETED, DEAD_LETTERED, EXPIRED)
_TOPIC_METRICS = (PUBLISHED, PUBLISHED_BYTES)


T = TypeVar("T")


class _Series(Generic[T]):
    """The children of a set of labelled metrics, for at most `max_keys` label pairs."""

    def __init__(self, make: Callable[[str, str], T], max_keys: int) -> None:
        self._make = make
        self.max_keys = max_keys
        self._children: dict[tuple[str, str], T] = {}
        self._other: T | None = None

    def of(self, account_id: str, name: str) -> T:
        children = self._children.get((account_id, name))
        if children is not None:
            return children
        if len(self._children) >= self.max_keys:
            if self._other is None:
                self._other = self._make(OTHER, OTHER)
            return self._other
        children = self._children[(account_id, name)] = self._make(account_id, name)
        return children

    def forget(self, account_id: str, name: str, metrics: tuple[Counter, ...]) -> None:
        if self._children.pop((account_id, name), None) is not None:
            for metric in metrics:
                metric.remove(account_id, name)


def _queue_children(account_id: str, name: str) -> QueueCounters:
    return QueueCounters(*(m.labels(account_id, name) for m in _QUEUE_METRICS))


def _topic_children(account_id: str, name: str) -> TopicCounters:
    return TopicCounters(*(m.labels(account_id, name) for m in _TOPIC_METRICS))


class QueueSeries(_Series[QueueCounters]):
    def __init__(self, max_queues: int = DEFAULT_MAX_QUEUES) -> None:
        super().__init__(_queue_children, max_queues)

    def drop(self, account_id: str, name: str) -> None:
        """A deleted queue's series go (a queue created again starts from zero)."""
        self.forget(account_id, name, _QUEUE_METRICS)


class TopicSeries(_Series[TopicCounters]):
    def __init__(self, max_topics: int = DEFAULT_MAX_QUEUES) -> None:
        super().__init__(_topic_children, max_topics)

    def drop(self, account_id: str, name: str) -> None:
        self.forget(account_id, name, _TOPIC_METRICS)


# The process's series: one set, whichever broker counts into them.
queues = QueueSeries()
topics = TopicSeries()


def set_max_queues(max_queues: int) -> None:
    """The cap on queues (and topics) with series of their own in this process."""
    queues.max_keys = topics.max_keys = max_queues


# -- request timing ---------------------------------------------------------------------

_request_children: dict[tuple[str, str, str], Histogram] = {}


def outcome(status: int) -> str:
    """`ok`, `client_error` (4xx: the request was refused) or `server_error` (5xx)."""
    if status < 400:
        return "ok"
    return "client_error" if status < 500 else "server_error"


def observe_request(api: str, action: str, started_s: float, status: int) -> None:
    """Records a request that arrived at `started_s` (time.perf_counter()) and is answered
    now with `status`. `action` must come from the API's own fixed list (UNKNOWN_ACTION
    otherwise), so that a client cannot make series up."""
    key = (api, action, outcome(status))
    child = _request_children.get(key)
    if child is None:
        child = _request_children[key] = REQUEST_SECONDS.labels(*key)
    child.observe(time.perf_counter() - started_s)


def process_stopped() -> None:
    """Drops this process's live gauges from the multiprocess files (a no-op without
    PROMETHEUS_MULTIPROC_DIR): a stopped gateway holds no connections."""
    if os.environ.get(MULTIPROC_DIR_ENV):
        multiprocess.mark_process_dead(os.getpid())  # type: ignore[no-untyped-call]
