"""Wiring: the gateway app over a control plane and an in-process storage node, with
request authentication against the access keys in the control plane.

Used by the embedded launcher and by the test harness, so both run the same stack.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette

from control_plane.access_keys import AccessKeys
from control_plane.bearer_tokens import BearerTokens
from control_plane.clock import Clock, SystemClock
from control_plane.plane import ControlPlane
from control_plane.secret_box import SecretBox
from gateway.app import create_app
from gateway.auth.authenticator import Authenticator
from gateway.auth.bearer import TokenVerifier
from gateway.core.broker import DEFAULT_MAX_MESSAGE_BYTES, Broker
from gateway.heap import freeze_startup_heap
from storage_nodes.local_node import LocalNode
from storage_nodes.log.log_config import Durability, LogConfig


@asynccontextmanager
async def open_broker(
    redis_url: str,
    data_dir: Path,
    durability: Durability = "fsync",
    clock: Clock | None = None,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
) -> AsyncIterator[tuple[Broker, ControlPlane]]:
    """Opens the control plane and the storage node, one clock for both, and the broker
    over them; closes them in reverse order."""
    control = await ControlPlane.connect(redis_url, clock)
    storage = LocalNode(data_dir / "node", LogConfig(durability=durability), control.clock)
    broker = Broker(control, storage, max_message_bytes)
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
) -> Starlette:
    """`master_key`: the key access-key secrets are sealed under (tidemq/master_key.py).

    `clock` times messages (visibility, delays, retention) and the log; `auth_clock` is
    what request dates and token expiries are checked against, the system clock unless
    given: clients sign with the real time, also when a test moves the message clock by
    hand.
    """
    box = SecretBox(master_key)
    request_clock = auth_clock or SystemClock()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with open_broker(redis_url, data_dir, durability, clock, max_message_bytes) as (
            broker,
            control,
        ):
            app.state.broker = broker
            app.state.authenticator = Authenticator(
                AccessKeys(control.redis, control.clock, box), request_clock
            )
            app.state.token_verifier = TokenVerifier(
                BearerTokens(control.redis, control.clock, control.metadata_cache),
                request_clock,
            )
            # Everything start-up made lives as long as the gateway: out of the
            # collector's walks from here on (gateway/heap.py).
            freeze_startup_heap()
            yield

    return create_app(lifespan, public_url)
