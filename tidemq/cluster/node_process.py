"""`tidemq node`: a storage node process of a cluster (docs/cluster.md).

Start-up, in this order:
  1. connect to the control plane (TIDEMQ_REDIS_URL: a cluster has no embedded Redis);
  2. open the storage node under <data dir>/node, its archive at TIDEMQ_ARCHIVE_URL
     (shared by every node: a partition's next owner reads its history there);
  3. serve the node protocol on host:node_port, and HTTP for operators on host:port
     (/healthz, /readyz, /metrics: node_http.py);
  4. register in membership, and print the banner.
Then, every third of the lease TTL: heartbeat, list the live nodes (whom partitions are
assigned among), renew the leases held, hand over (in the background) those the
assignment now gives a node that joined, offer the tails of logs left on this disk that
it no longer owns (a node back from a crash) and list those offered for the partitions
it owns (storage_nodes/takeover.py), tend the tail copies (storage_nodes/copies: offer
or delete the copies it keeps as a follower), publish this process's report.

SIGTERM or SIGINT, in this order: deregister (gateways and nodes stop assigning it
partitions); refuse new requests and let those in progress finish, acknowledged; seal
and archive each partition's tail and release its lease (the next owner takes it at
once); close the server, the logs and the control plane. Exit code 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import signal
import sys
from pathlib import Path

import uvloop

from control_plane.assignment import weight
from control_plane.errors import ControlPlaneError
from control_plane.leases import Leases
from control_plane.membership import Membership
from control_plane.offset_reservations import OffsetReservations
from control_plane.plane import ControlPlane
from control_plane.process_reports import ProcessReports
from storage_nodes.copies.copier import TailCopier
from storage_nodes.copies.replica_store import ReplicaStore
from storage_nodes.takeover import Takeovers
from storage_nodes.wire.producer_sequences import ProducerSequences
from storage_nodes.wire.server import NodeServer
from tidemq.cluster.hand_over import HandOvers
from tidemq.cluster.lease_keeper import LeaseKeeper
from tidemq.cluster.node_http import NodeHttp, node_app
from tidemq.settings import Settings, SettingsError
from tidemq.stack import archive_options, open_storage_node

log = logging.getLogger(__name__)


def run(settings: Settings) -> None:
    if settings.redis_url is None:
        raise SettingsError(
            "tidemq node needs the cluster's Redis: set TIDEMQ_REDIS_URL (redis://host:port)"
        )
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(_serve(settings, settings.redis_url))
    log.info("TideMQ node stopped")


def new_process_id(role: str) -> str:
    """An id naming one process: a restarted one never takes its predecessor's."""
    return f"{role}-{os.getpid()}-{secrets.token_hex(3)}"


async def _serve(settings: Settings, redis_url: str) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    node_id = settings.node_id or new_process_id("node")
    ttl_ms = settings.lease_ttl_ms
    data_dir = settings.data_dir.resolve()
    control = await ControlPlane.connect(redis_url)
    storage = await open_storage_node(
        control, data_dir / "node", settings.durability, archive_options(settings)
    )
    await storage.start(open_on_disk=False)
    tiering = storage.tiering
    assert tiering is not None, "a node of a cluster has an archive"
    replicas = ReplicaStore(data_dir / "node")
    await replicas.load()
    sequences = ProducerSequences()
    leases = Leases(control.redis, control.clock)
    reservations = OffsetReservations(control.redis, control.clock)
    keeper = LeaseKeeper(
        leases,
        storage,
        node_id,
        ttl_ms,
        next_writer_epoch=control.next_writer_epoch,
        sequences=sequences,
        reservations=reservations,
        takeovers=Takeovers(storage, data_dir / "node", replicas=replicas),
        replicas=replicas,
    )
    hand_overs = HandOvers(keeper, storage, leases, reservations)
    copier = keeper.copies = TailCopier(
        node_id,
        tiering.manifests.store,
        keeper,
        archive=storage.archive_partition,
        archived_end=tiering.archived_end,
        weight=weight,
        timeout_ms=ttl_ms,
    )
    server = NodeServer(storage, keeper, sequences=sequences, copies=copier, replicas=replicas)
    membership = Membership(control.redis, control.clock)
    reports = ProcessReports(control.redis)
    http = NodeHttp(
        node_app(control, storage, stopping=stop.is_set, metrics_token=settings.metrics_token),
        settings.host,
        settings.port,
    )
    try:
        host, port = await server.start(settings.host, settings.node_port)
        address = settings.node_address or f"{host}:{port}"
        http_host, http_port = await http.start()
        await membership.register(node_id, address, ttl_ms)
        # Known from the start, not from the first tick: whom partitions are assigned
        # among, and whom tail copies go to.
        await _see_live_nodes(membership, keeper)
        await _report(reports, keeper, address)
        _print_banner(node_id, address, f"http://{http_host}:{http_port}", data_dir, redis_url)
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), ttl_ms / 3000)
            if not stop.is_set():
                await _tick(
                    membership, keeper, hand_overs, server, reports, address=address, ttl_ms=ttl_ms
                )
        log.info("stopping: handing the partitions over")
        with contextlib.suppress(ControlPlaneError):
            await membership.deregister(node_id)
        await hand_overs.hand_over_all(server.drain)
        with contextlib.suppress(ControlPlaneError):
            await reports.remove("node", node_id)
    finally:
        await http.close()
        await server.close()
        await copier.close()
        await storage.close()
        await control.close()


async def _tick(
    membership: Membership,
    keeper: LeaseKeeper,
    hand_overs: HandOvers,
    server: NodeServer,
    reports: ProcessReports,
    *,
    address: str,
    ttl_ms: int,
) -> None:
    node_id = keeper.node_id
    try:
        if not await membership.heartbeat(node_id, ttl_ms):
            # Presumed dead (a pause past the TTL): its leases have been judged expired
            # already; it joins again as it is.
            log.warning("this node's registration had expired; registering again")
            await membership.register(node_id, address, ttl_ms)
        await _see_live_nodes(membership, keeper)
    except ControlPlaneError as exc:
        log.warning("membership: %s", exc)
    await keeper.renew_all()
    hand_overs.start_rebalance(server.settle)
    await keeper.recover_tails()
    try:
        await _report(reports, keeper, address)
    except ControlPlaneError as exc:
        log.warning("report: %s", exc)


async def _see_live_nodes(membership: Membership, keeper: LeaseKeeper) -> None:
    live = await membership.live_nodes()
    keeper.set_live_nodes(node.node_id for node in live)
    if keeper.copies is not None:
        keeper.copies.set_live_nodes({node.node_id: node.address for node in live})


async def _report(reports: ProcessReports, keeper: LeaseKeeper, address: str) -> None:
    await reports.publish(
        "node",
        keeper.node_id,
        {
            "pid": os.getpid(),
            "address": address,
            "partitions": [
                {"stream_id": lease.stream_id, "partition": lease.partition, "epoch": lease.epoch}
                for lease in keeper.held()
            ],
        },
    )


def _print_banner(node_id: str, address: str, http: str, data_dir: Path, redis_url: str) -> None:
    lines = [
        "",
        "TideMQ node is up.",
        f"  node id            {node_id}",
        f"  endpoint           {address}",
        f"  http               {http}",
        f"  pid                {os.getpid()}",
        f"  data dir           {data_dir}",
        f"  redis              {redis_url}",
        "Stop with Ctrl-C.",
        "",
    ]
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()
