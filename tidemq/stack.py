"""Wiring: the gateway app over a control plane and an in-process storage node.

Used by the embedded launcher and by the test harness, so both run the same stack.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette

from control_plane.clock import Clock
from control_plane.plane import ControlPlane
from gateway.app import create_app
from gateway.broker import Broker
from storage_nodes.log.log_config import Durability, LogConfig
from storage_nodes.node import StorageNode


@asynccontextmanager
async def open_broker(
    redis_url: str, data_dir: Path, durability: Durability = "fsync", clock: Clock | None = None
) -> AsyncIterator[Broker]:
    """Opens the control plane and the storage node; closes them in reverse order."""
    control = await ControlPlane.connect(redis_url, clock)
    storage = StorageNode(data_dir / "node", LogConfig(durability=durability))
    try:
        yield Broker(control, storage)
    finally:
        await storage.close()  # flush and fsync logs before the control plane goes
        await control.close()


def build_app(
    redis_url: str,
    data_dir: Path,
    *,
    durability: Durability = "fsync",
    public_url: str | None = None,
    clock: Clock | None = None,
) -> Starlette:
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with open_broker(redis_url, data_dir, durability, clock) as broker:
            app.state.broker = broker
            yield

    return create_app(lifespan, public_url)
