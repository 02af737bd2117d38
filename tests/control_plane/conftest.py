"""Every control-plane test runs twice: on one Redis, and on a Redis Cluster of three
masters, where a script or transaction whose keys span two hash slots fails (CROSSSLOT).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from control_plane.clock import ManualClock
from control_plane.plane import ControlPlane
from tests.redis_cluster import flush_all
from tidemq.redis_server import RedisServer


@pytest.fixture(params=["redis", "cluster"])
def redis_url(request: pytest.FixtureRequest) -> str:
    """An empty Redis: the session's single server, or its Redis Cluster."""
    if request.param == "cluster":
        return str(request.getfixturevalue("redis_cluster_url"))
    server: RedisServer = request.getfixturevalue("redis_server")
    flush_all(server.url)
    return server.url


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def plane(redis_url: str, clock: ManualClock) -> AsyncIterator[ControlPlane]:
    control = await ControlPlane.connect(redis_url, clock)
    yield control
    await control.close()
