"""A gateway's registration in the control plane, for `tidemq cluster status`.

Gateways route by the leases and the live nodes; nothing depends on knowing which
gateways run. They register all the same (control_plane.membership, role "gateway") and
report their pid, so that an operator sees the whole cluster in one place.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

from control_plane.errors import ControlPlaneError
from control_plane.membership import Membership, Role
from control_plane.plane import ControlPlane
from control_plane.process_reports import ProcessReports

log = logging.getLogger(__name__)


@asynccontextmanager
async def registered(
    control: ControlPlane,
    role: Role,
    process_id: str,
    address: str,
    *,
    ttl_ms: int,
    report: Callable[[], Mapping[str, Any]] = dict,
) -> AsyncIterator[None]:
    """Registers the process, heartbeats a third of `ttl_ms` apart with its report, and
    deregisters it on the way out."""
    membership = Membership(control.redis, control.clock, role)
    reports = ProcessReports(control.redis)

    async def publish() -> None:
        await reports.publish(
            role, process_id, {"pid": os.getpid(), "address": address, **report()}
        )

    await membership.register(process_id, address, ttl_ms)
    await publish()

    async def heartbeat() -> None:
        while True:
            await asyncio.sleep(ttl_ms / 3000)
            try:
                if not await membership.heartbeat(process_id, ttl_ms):
                    await membership.register(process_id, address, ttl_ms)
                await publish()
            except ControlPlaneError as exc:
                log.warning("%s registration: %s", role, exc)

    task = asyncio.create_task(heartbeat(), name=f"{role}-heartbeat")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        with contextlib.suppress(ControlPlaneError):
            await membership.deregister(process_id)
            await reports.remove(role, process_id)
