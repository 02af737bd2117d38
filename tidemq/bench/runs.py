"""Each `tidemq bench` workload, run against TideMQ, then against the ceiling app, then
(with `--peer redis`, for the shapes it has) against the Redis Streams peer."""

from __future__ import annotations

import argparse
import math
import secrets
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import uvloop

from tidemq.bench.disk_probe import DiskProbe
from tidemq.bench.e2e import e2e_ws
from tidemq.bench.http_client import HttpClient
from tidemq.bench.load import (
    AsyncStep,
    Limits,
    Measured,
    SyncStep,
    closed_loop,
    open_loop,
    threaded_closed_loop,
)
from tidemq.bench.redis_peer import RedisStreams
from tidemq.bench.servers import BenchError, Credentials
from tidemq.bench.workloads import Rest, Sqs, rest_session
from tidemq.bench.ws import WsConnections

PRELOAD_SECONDS = 300.0
T = TypeVar("T")


@dataclass(frozen=True)
class Row:
    workload: str
    result: Measured
    ceiling: Measured  # the ceiling app under the same requests
    # The Redis Streams peer under the same shape; None without --peer, or for a workload
    # it has no shape for.
    peer: Measured | None = None
    # The disk's syncs while TideMQ's run of a latency workload ran (disk_probe.py).
    disk: DiskProbe | None = None

    def as_json(self, peer: str | None = None) -> dict[str, object]:
        """One JSON object; with `peer` (the --peer chosen), the peer's figures too, null
        for a workload the peer has no shape for."""
        row: dict[str, object] = {
            "workload": self.workload,
            "msgs_per_s": _number(self.result.msgs_per_s, 1),
            "p50_ms": _number(self.result.percentile(50), 3),
            "p99_ms": _number(self.result.percentile(99), 3),
            "p999_ms": _number(self.result.percentile(99.9), 3),
            "ceiling_msgs_per_s": _number(self.ceiling.msgs_per_s, 1),
            "ceiling_p99_ms": _number(self.ceiling.percentile(99), 3),
            "disk_sync_p99_ms": None,
            "disk_sync_max_ms": None,
        }
        if self.disk is not None:
            row["disk_sync_p99_ms"] = _number(self.disk.percentile(99), 3)
            row["disk_sync_max_ms"] = _number(self.disk.max_ms, 3)
        if peer is not None:
            row["peer"] = peer
            row.update(_figures("peer_", self.peer))
            row["ratio_to_peer"] = _number(self.ratio_to_peer, 3)
        return row

    @property
    def ratio_to_peer(self) -> float:
        """TideMQ's msgs/s over the peer's; NaN without a peer figure."""
        if self.peer is None or not self.peer.msgs_per_s:
            return math.nan
        return self.result.msgs_per_s / self.peer.msgs_per_s


def _figures(prefix: str, measured: Measured | None) -> dict[str, float | None]:
    """msgs/s and percentiles under `prefix`; all null for what was not measured."""
    if measured is None:
        return dict.fromkeys((f"{prefix}{k}" for k in _FIGURES), None)
    return {
        f"{prefix}msgs_per_s": _number(measured.msgs_per_s, 1),
        f"{prefix}p50_ms": _number(measured.percentile(50), 3),
        f"{prefix}p99_ms": _number(measured.percentile(99), 3),
        f"{prefix}p999_ms": _number(measured.percentile(99.9), 3),
    }


_FIGURES = ("msgs_per_s", "p50_ms", "p99_ms", "p999_ms")


def _number(value: float, digits: int) -> float | None:
    return None if math.isnan(value) else round(value, digits)


def run_async(make: Callable[[], Awaitable[T]]) -> T:
    """One run on a fresh uvloop event loop, the loop the gateway runs on."""

    async def main() -> T:
        return await make()

    return uvloop.run(main())


class Runs:
    def __init__(
        self,
        args: argparse.Namespace,
        endpoint: str,
        credentials: Credentials,
        ceiling: str,
        peer_port: int | None = None,
        *,
        probe_dir: Path | None = None,
    ) -> None:
        """`peer_port`: the Redis Streams peer's, when --peer redis runs; `probe_dir`: on
        the disk TideMQ writes to, for the disk probe of the latency workloads (default:
        --dir)."""
        self.args = args
        self.probe_dir = probe_dir or args.dir
        self.peer_port = peer_port
        self.endpoint = endpoint
        self.credentials = credentials
        self.ceiling_url = ceiling
        self.limits = Limits(args.messages, args.seconds, args.warmup)
        prefix = f"bench-{secrets.token_hex(3)}"
        self.queues = {
            "single": f"{prefix}-single",
            "fixed": f"{prefix}-fixed",
            "batch": f"{prefix}-batch",
            "sqs": f"{prefix}-sqs",
            "ws": f"{prefix}-ws",
            "e2e": f"{prefix}-e2e",
        }
        self._single_ceiling: Measured | None = None
        self._fixed_ceiling: Measured | None = None  # the ceiling at --rate, for e2e_ws too
        self._peer_consume: Measured | None = None  # one run serves both consume rows

    def run(self, chosen: list[str]) -> list[Row]:
        run_async(self._create_queues)
        rows: list[Row] = []
        try:
            for workload in chosen:
                print(f"{workload}:", file=sys.stderr)
                if workload == "ceiling":
                    ceiling = self._single_ceiling or self._rest(
                        "ceiling", "single", lambda rest: rest.publish_single(), ceiling=True
                    )
                    rows.append(Row("ceiling", ceiling, ceiling))
                    continue
                rows.append(getattr(self, workload)())
        finally:
            if self.args.endpoint:
                run_async(self._delete_queues)
        return rows

    # The workloads.

    def publish_single_rest(self) -> Row:
        result = self._rest("tidemq", "single", lambda rest: rest.publish_single())
        ceiling = self._rest("ceiling", "single", lambda rest: rest.publish_single(), ceiling=True)
        self._single_ceiling = ceiling
        return Row("publish_single_rest", result, ceiling)

    def publish_single_rest_fixed_rate(self) -> Row:
        rate = self.args.rate
        with DiskProbe(self.probe_dir) as disk:
            result = self._rest("tidemq", "fixed", lambda rest: rest.publish_single(), rate=rate)
        ceiling = self._fixed_rate_ceiling()
        peer = self._peer("fixed", lambda redis: redis.publish("fixed", 1), rate=rate)
        return Row("publish_single_rest_fixed_rate", result, ceiling, peer, disk)

    def publish_batch_rest(self) -> Row:
        size = self.args.batch_size
        result = self._rest("tidemq", "batch", lambda rest: rest.publish_batch(size))
        ceiling = self._rest(
            "ceiling", "batch", lambda rest: rest.publish_batch(size), ceiling=True
        )
        peer = self._peer("batch", lambda redis: redis.publish("batch", size))
        return Row("publish_batch_rest", result, ceiling, peer)

    def publish_batch_sqs(self) -> Row:
        result = self._sqs("tidemq", lambda sqs: sqs.publish_batch())
        ceiling = self._sqs("ceiling", lambda sqs: sqs.publish_batch(), ceiling=True)
        return Row("publish_batch_sqs", result, ceiling)

    def consume_rest(self) -> Row:
        available = self._fill("batch")
        size = self.args.batch_size
        limits = Limits(available, self.args.seconds, self.args.warmup)
        result = self._rest("tidemq", "batch", lambda rest: rest.consume(size), limits=limits)
        ceiling = self._rest(
            "ceiling", "batch", lambda rest: rest.consume(size), limits=limits, ceiling=True
        )
        return Row("consume_rest", result, ceiling, self._peer_consumed())

    def consume_sqs(self) -> Row:
        available = self._fill("sqs")
        limits = Limits(available, self.args.seconds, self.args.warmup)
        result = self._sqs("tidemq", lambda sqs: sqs.consume(), limits=limits)
        ceiling = self._sqs("ceiling", lambda sqs: sqs.consume(), limits=limits, ceiling=True)
        return Row("consume_sqs", result, ceiling)

    def publish_ws(self) -> Row:
        size = self.args.batch_size
        result = self._ws("tidemq", lambda ws: ws.publish(self.queues["ws"], size))
        ceiling = self._ws("ceiling", lambda ws: ws.publish(self.queues["ws"], size), ceiling=True)
        return Row("publish_ws", result, ceiling)

    def consume_ws(self) -> Row:
        available = self._fill("ws")
        limits = Limits(available, self.args.seconds, self.args.warmup)
        # Twice a batch in flight: the next pushes come while a batch is being acked.
        credit = 2 * self.args.batch_size
        result = self._ws(
            "tidemq", lambda ws: ws.consume(self.queues["ws"]), credit=credit, limits=limits
        )
        ceiling = self._ws(
            "ceiling",
            lambda ws: ws.consume(self.queues["ws"]),
            credit=credit,
            limits=limits,
            ceiling=True,
        )
        return Row("consume_ws", result, ceiling, self._peer_consumed())

    def e2e_ws(self) -> Row:
        """REST publishes at --rate, each timed until its push on a subscribed WebSocket;
        the ceiling is the ceiling app under the same publishes."""
        rate = self.args.rate

        async def go() -> Measured:
            token, connections = self.credentials.token, self.args.connections
            async with (
                rest_session(connections, token) as session,
                HttpClient(self.endpoint, token, connections) as http,
            ):
                return await e2e_ws(session, http, self.queues["e2e"], rate, self.limits)

        with DiskProbe(self.probe_dir) as disk:
            result = run_async(go)
        return Row("e2e_ws", result, self._fixed_rate_ceiling(), disk=disk)

    # How they run.

    def _fixed_rate_ceiling(self) -> Measured:
        if self._fixed_ceiling is None:
            self._fixed_ceiling = self._rest(
                "ceiling",
                "fixed",
                lambda rest: rest.publish_single(),
                rate=self.args.rate,
                ceiling=True,
            )
        return self._fixed_ceiling

    def _rest(
        self,
        where: str,
        queue: str,
        make: Callable[[Rest], AsyncStep],
        *,
        rate: float | None = None,
        limits: Limits | None = None,
        ceiling: bool = False,
    ) -> Measured:
        base = self.ceiling_url if ceiling else self.endpoint
        bounds = limits or self.limits
        label = f"{where} {queue}" + (f" @{rate:,.0f}/s" if rate else "")

        async def go() -> Measured:
            async with HttpClient(base, self.credentials.token, self.args.connections) as http:
                step = make(Rest(http, self.queues[queue], ceiling))
                if rate is not None:
                    return await open_loop(label, step, rate, bounds)
                return await closed_loop(label, step, self.args.connections, bounds)

        return run_async(go)

    def _ws(
        self,
        where: str,
        make: Callable[[WsConnections], AsyncStep],
        *,
        credit: int | None = None,
        limits: Limits | None = None,
        ceiling: bool = False,
    ) -> Measured:
        """--connections WebSocket connections, one worker each; subscribed to the ws queue
        with `credit` first when it is given."""
        base = self.ceiling_url if ceiling else self.endpoint

        async def go() -> Measured:
            async with rest_session(self.args.connections, self.credentials.token) as session:
                connections = WsConnections()
                await connections.open(session, base, self.args.connections)
                try:
                    if credit is not None:
                        await connections.subscribe_all(self.queues["ws"], credit)
                    step = make(connections)
                    return await closed_loop(
                        f"{where} ws", step, self.args.connections, limits or self.limits
                    )
                finally:
                    await connections.close()

        return run_async(go)

    def _peer_consumed(self) -> Measured | None:
        """The peer's consume + ack of --messages entries: XREADGROUP of --batch-size and
        one XACK, on --connections connections (measured once for both consume rows)."""
        if self._peer_consume is None:
            size = self.args.batch_size
            self._peer_consume = self._peer(
                "consume", lambda redis: redis.consume("consume", size), fill="consume"
            )
        return self._peer_consume

    def _peer(
        self,
        stream: str,
        make: Callable[[RedisStreams], AsyncStep],
        *,
        rate: float | None = None,
        fill: str | None = None,
    ) -> Measured | None:
        """The peer under the step `make` gives, as _rest runs TideMQ (same connection
        count, bounds, closed or open loop); None without a peer. `fill`: a stream made
        afresh with --messages entries first."""
        if self.peer_port is None:
            return None
        port = self.peer_port
        label = f"redis {stream}" + (f" @{rate:,.0f}/s" if rate else "")

        async def go() -> Measured:
            redis = RedisStreams(port)
            await redis.open(self.args.connections)
            try:
                if fill is not None:
                    await redis.fill(fill, self.args.messages)
                step = make(redis)
                if rate is not None:
                    return await open_loop(label, step, rate, self.limits)
                return await closed_loop(label, step, self.args.connections, self.limits)
            finally:
                await redis.close()

        return run_async(go)

    def _sqs(
        self,
        where: str,
        make: Callable[[Sqs], SyncStep],
        *,
        limits: Limits | None = None,
        ceiling: bool = False,
    ) -> Measured:
        endpoint = self.ceiling_url if ceiling else self.endpoint
        sqs = Sqs(
            endpoint,
            self.queues["sqs"],
            self.credentials.access_key_id,
            self.credentials.secret_access_key,
            ceiling,
        )
        steps = [make(sqs) for _ in range(self.args.sqs_threads)]
        return threaded_closed_loop(f"{where} sqs", steps, limits or self.limits)

    def _fill(self, queue: str) -> int:
        """Tops the queue up to --messages visible messages; returns how many there are."""
        target = self.args.messages

        async def go() -> int:
            async with HttpClient(
                self.endpoint, self.credentials.token, self.args.connections
            ) as http:
                rest = Rest(http, self.queues[queue], ceiling=False)
                missing = target - await rest.visible()
                if missing > 0:
                    limits = Limits(missing, PRELOAD_SECONDS, 0.0)
                    filled = await closed_loop(
                        f"preload {queue}", rest.publish_batch(100), self.args.connections, limits
                    )
                    if filled.errors:
                        raise BenchError(f"preloading failed: {filled.first_error}")
                return await rest.visible()

        available = run_async(go)
        if available <= 0:
            raise BenchError(f"queue {self.queues[queue]} is empty after preloading")
        return available

    async def _create_queues(self) -> None:
        async with HttpClient(self.endpoint, self.credentials.token, 4) as http:
            for name in self.queues.values():
                try:
                    await Rest(http, name, ceiling=False).create()
                except Exception as exc:
                    raise BenchError(f"cannot create queue {name}: {exc}") from exc

    async def _delete_queues(self) -> None:
        async with HttpClient(self.endpoint, self.credentials.token, 4) as http:
            for name in self.queues.values():
                await Rest(http, name, ceiling=False).delete_queue()
