"""Wiring: the gateway app over a control plane and an in-process storage node, with
request authentication against the access keys in the control plane.

Used by the embedded launcher and by the test harness, so both run the same stack.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette

from control_plane import signing_keys
from control_plane.access_keys import AccessKeys
from control_plane.bearer_tokens import BearerTokens
from control_plane.clock import Clock, SystemClock
from control_plane.plane import ControlPlane
from control_plane.secret_box import SecretBox
from gateway import aws_models, metrics
from gateway.admission import AdmissionLimits, FairScheduler
from gateway.app import create_app
from gateway.auth.authenticator import Authenticator
from gateway.auth.bearer import TokenVerifier
from gateway.auth.console_sessions import ConsoleSessions
from gateway.core.broker import DEFAULT_MAX_MESSAGE_BYTES, Broker
from gateway.core.envelopes import Envelopes
from gateway.heap import QUIET_REQUESTS, collecting_on_schedule, freeze_startup_heap
from gateway.heap_trim import trimming_heap
from storage_nodes.archive.manifest import Manifests
from storage_nodes.archive.remote_reads import ArchiveReader
from storage_nodes.archive.segment_cache import DEFAULT_MAX_BYTES, SegmentCache
from storage_nodes.archive.stores import S3Options, open_store
from storage_nodes.archive.tiering import DAY_MS, Tiering, TieringConfig
from storage_nodes.local_node import LocalNode
from storage_nodes.log.log_config import DEFAULT_CONFIG, Durability, LogConfig
from storage_nodes.node import Node, Replication
from tidemq.cluster.presence import registered
from tidemq.cluster.routing_node import RoutingNode
from tidemq.settings import Settings

HOUR_MS = 3600 * 1000


@dataclass(frozen=True, slots=True)
class ClusterGateway:
    """A gateway of a cluster: no storage of its own, it routes to the nodes' lease
    holders (tidemq/cluster/routing_node.py) and registers as `gateway_id`."""

    gateway_id: str
    lease_ttl_ms: int
    node_request_timeout_ms: int


@dataclass(frozen=True, slots=True)
class ArchiveOptions:
    """The archive and the local log's segments (docs/tiering.md has each setting)."""

    url: str | None = None  # None: <data dir>/archive, a local-directory store
    s3: S3Options = field(default_factory=S3Options)
    segment_bytes: int = DEFAULT_CONFIG.segment_max_bytes
    segment_ms: int = HOUR_MS
    local_retention_bytes: int = 1 << 30
    local_retention_ms: int = DAY_MS
    disk_budget_bytes: int | None = None
    delete_grace_ms: int = 7 * DAY_MS
    archive_retention_ms: int | None = None
    cache_bytes: int = DEFAULT_MAX_BYTES


def archive_options(settings: Settings) -> ArchiveOptions:
    return ArchiveOptions(
        url=settings.archive_url,
        s3=S3Options(
            endpoint_url=settings.s3_endpoint_url,
            region=settings.s3_region,
            access_key_id=settings.s3_access_key_id,
            secret_access_key=settings.s3_secret_access_key,
        ),
        segment_bytes=settings.segment_bytes,
        segment_ms=settings.segment_ms,
        local_retention_bytes=settings.local_retention_bytes,
        local_retention_ms=settings.local_retention_ms,
        disk_budget_bytes=settings.disk_budget_bytes,
        delete_grace_ms=settings.archive_delete_grace_ms,
        archive_retention_ms=settings.archive_retention_ms,
        cache_bytes=settings.archive_cache_bytes,
    )


async def open_storage_node(
    control: ControlPlane,
    node_dir: Path,
    durability: Durability = "fsync",
    archive: ArchiveOptions | None = None,
) -> LocalNode:
    """A storage node over `node_dir` with its archive and tiering, not yet started."""
    archive = archive or ArchiveOptions()
    store = open_store(archive.url or str(node_dir.parent / "archive"), archive.s3)
    manifests = Manifests(store)
    tiering = Tiering(
        manifests,
        TieringConfig(
            writer_epoch=await control.next_writer_epoch(),
            local_retention_bytes=archive.local_retention_bytes,
            local_retention_ms=archive.local_retention_ms,
            disk_budget_bytes=archive.disk_budget_bytes,
            delete_grace_ms=archive.delete_grace_ms,
            archive_retention_ms=archive.archive_retention_ms,
            # Often enough that an idle segment is sealed within a second of its age.
            check_interval_ms=min(1_000, max(archive.segment_ms // 4, 50)),
        ),
        control.clock,
        node_dir,
    )
    log_config = LogConfig(
        durability=durability,
        segment_max_bytes=archive.segment_bytes,
        segment_max_age_ms=archive.segment_ms,
    )
    return LocalNode(
        node_dir,
        log_config,
        control.clock,
        tiering=tiering,
        archive_reader=ArchiveReader(
            manifests, SegmentCache(store, node_dir / "archive-cache", archive.cache_bytes)
        ),
    )


@asynccontextmanager
async def open_broker(
    redis_url: str,
    data_dir: Path,
    *,
    durability: Durability = "fsync",
    clock: Clock | None = None,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    archive: ArchiveOptions | None = None,
    cluster: ClusterGateway | None = None,
    replication: Replication = "none",
) -> AsyncIterator[tuple[Broker, ControlPlane]]:
    """Opens the control plane and the storage node, one clock for both, and the broker
    over them; closes them in reverse order. With `cluster`, the storage is the
    cluster's nodes instead, reached over the network. `replication`: new queues' and
    topics' default `Replication` (docs/durability.md)."""
    control = await ControlPlane.connect(redis_url, clock, serving=True)
    storage: Node
    if cluster is None:
        local = await open_storage_node(control, data_dir / "node", durability, archive)
        await local.start()
        storage = local
    else:
        storage = RoutingNode(
            control,
            timeout_ms=cluster.node_request_timeout_ms,
            attempt_timeout_ms=cluster.lease_ttl_ms,
        )
    broker = Broker(control, storage, max_message_bytes, default_replication=replication)
    try:
        yield broker, control
    finally:
        await broker.close()  # background work first: it uses the two below
        await storage.close()  # flush and fsync logs before the control plane goes
        await control.close()


def build_app(
    redis_url: str,
    data_dir: Path,
    *,
    master_key: bytes,
    durability: Durability = "fsync",
    public_url: str | None = None,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    clock: Clock | None = None,
    auth_clock: Clock | None = None,
    archive: ArchiveOptions | None = None,
    advertised_url: str,
    metrics_max_queues: int = metrics.DEFAULT_MAX_QUEUES,
    metrics_token: str | None = None,
    access_log: bool = False,
    admission: AdmissionLimits | None = None,
    cluster: ClusterGateway | None = None,
    replication: Replication = "none",
) -> Starlette:
    """`master_key`: the key access-key secrets are sealed under (tidemq/master_key.py).

    `advertised_url`: where clients reach this gateway, for the links in the messages
    topics deliver (signing certificate, unsubscribe); `public_url` when that is set.

    `clock` times messages (visibility, delays, retention) and the log; `auth_clock` is
    what request dates and token expiries are checked against, the system clock unless
    given: clients sign with the real time, also when a test moves the message clock by
    hand.

    `metrics_max_queues` and `metrics_token`: what `/metrics` shows at most, and the
    token it asks for (gateway/app.py); `access_log`: a log record per request;
    `admission`: how many requests do work at once (gateway/admission.py).

    `cluster`: a gateway of a cluster, with no storage of its own (ClusterGateway);
    `replication`: new queues' and topics' default `Replication` (docs/durability.md).
    """
    box = SecretBox(master_key)
    request_clock = auth_clock or SystemClock()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with open_broker(
            redis_url,
            data_dir,
            durability=durability,
            clock=clock,
            max_message_bytes=max_message_bytes,
            archive=archive,
            cluster=cluster,
            replication=replication,
        ) as (broker, control):
            app.state.broker = broker
            signing_key = await signing_keys.load_or_create(control.redis, master_key)
            app.state.signing_key = signing_key
            links_url = (public_url or advertised_url).rstrip("/")
            broker.start_dispatch(Envelopes(signing_key, links_url))
            app.state.authenticator = Authenticator(
                AccessKeys(control.redis, control.clock, box, control.metadata_cache),
                request_clock,
            )
            app.state.console_sessions = ConsoleSessions(master_key, request_clock)
            app.state.token_verifier = TokenVerifier(
                BearerTokens(control.redis, control.clock, control.metadata_cache),
                request_clock,
            )
            # Read now, not by the first Query request of each action (gateway/aws_models.py).
            aws_models.load()
            # Everything start-up made lives as long as the gateway: out of the
            # collector's walks from here on (gateway/heap.py).
            freeze_startup_heap()
            try:
                admission: FairScheduler = app.state.admission
                async with (
                    trimming_heap(quiet=lambda: admission.in_flight < QUIET_REQUESTS),
                    collecting_on_schedule(lambda: admission.in_flight),
                    _presence(control, cluster, advertised_url),
                ):
                    yield
            finally:
                metrics.process_stopped()

    return create_app(
        lifespan,
        public_url,
        metrics_max_queues=metrics_max_queues,
        metrics_token=metrics_token,
        access_log=access_log,
        admission=admission,
    )


def _presence(
    control: ControlPlane, cluster: ClusterGateway | None, address: str
) -> AbstractAsyncContextManager[None]:
    """A cluster's gateway is registered while it serves (`tidemq cluster status`)."""
    if cluster is None:
        return nullcontext()
    return registered(control, "gateway", cluster.gateway_id, address, ttl_ms=cluster.lease_ttl_ms)
