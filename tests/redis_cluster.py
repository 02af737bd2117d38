"""A real Redis Cluster of three masters (no replicas) on loopback, for tests.

Each master is the same binary `tidemq up` runs (tidemq/redis_server.py), started with
`cluster-enabled yes` in its own data directory. The cluster is formed by hand, the way
`redis-cli --cluster create` does it: each master is given a third of the 16384 slots
(CLUSTER ADDSLOTSRANGE), the first meets the others (CLUSTER MEET), and the cluster is
ready once every master reports `cluster_state:ok` and knows every other one, so that
whichever node a client asks for the slot map gives the whole of it.
"""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import urlsplit

import redis
from redis.asyncio import RedisCluster

from control_plane.redis_client import RedisClient, is_cluster_url
from tidemq.redis_server import RedisServer, RedisServerConfig

SLOTS = 16384
_READY_TIMEOUT_S = 30.0


async def command_calls(redis_client: RedisClient, command: str) -> int:
    """How many times Redis ran `command` (lower case: "publish", "evalsha") so far, on
    every node of a cluster."""
    if isinstance(redis_client, RedisCluster):
        per_node = await redis_client.info("commandstats", target_nodes=RedisCluster.ALL_NODES)
        stats = list(per_node.values())
    else:
        stats = [await redis_client.info("commandstats")]
    return sum(int(s.get(f"cmdstat_{command}", {}).get("calls", 0)) for s in stats)


class LocalRedisCluster:
    """Not thread-safe; start, flush and stop it from one thread."""

    def __init__(self, base_dir: Path, masters: int = 3) -> None:
        self.servers = [
            RedisServer(RedisServerConfig(base_dir / f"node-{i}", cluster_enabled=True))
            for i in range(masters)
        ]

    @property
    def url(self) -> str:
        """What TideMQ is configured with: any one node; the client finds the others."""
        return f"redis+cluster://127.0.0.1:{self.servers[0].port}"

    def start(self) -> None:
        try:
            for server in self.servers:
                server.start()
            self._form()
        except BaseException:
            self.stop()
            raise

    def flush(self) -> None:
        """Empties every master (FLUSHALL is per node)."""
        for client in self._clients():
            try:
                client.flushall()
            finally:
                client.close()

    def stop(self) -> None:
        for server in self.servers:
            server.stop()

    def _clients(self) -> list[redis.Redis]:
        return [redis.Redis(port=server.port, socket_timeout=5) for server in self.servers]

    def _form(self) -> None:
        clients = self._clients()
        try:
            step = SLOTS // len(clients)
            for i, client in enumerate(clients):
                last = SLOTS - 1 if i == len(clients) - 1 else (i + 1) * step - 1
                client.execute_command("CLUSTER ADDSLOTSRANGE", i * step, last)
            for server in self.servers[1:]:
                clients[0].execute_command(
                    "CLUSTER MEET", "127.0.0.1", server.port, server.bus_port
                )
            self._wait_until_ready(clients)
        finally:
            for client in clients:
                client.close()

    def _wait_until_ready(self, clients: list[redis.Redis]) -> None:
        deadline = time.monotonic() + _READY_TIMEOUT_S
        while True:
            infos = [client.execute_command("CLUSTER INFO") for client in clients]
            if all(_is_ready(info, len(clients)) for info in infos):
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Redis Cluster did not form in {_READY_TIMEOUT_S} s")
            time.sleep(0.05)


def _is_ready(info: dict[str, object], masters: int) -> bool:
    """`info`: CLUSTER INFO as redis-py parses it (field -> value)."""
    fields = {name: str(value) for name, value in info.items()}
    return (
        fields.get("cluster_state") == "ok"
        and fields.get("cluster_slots_ok") == str(SLOTS)
        and fields.get("cluster_known_nodes") == str(masters)
    )


def flush_all(redis_url: str) -> None:
    """Empties the Redis of `redis_url`, one server or every master of a cluster."""
    client = _client(redis_url)
    try:
        client.flushall()  # on a cluster, redis-py sends it to every master
    finally:
        client.close()


def key_count(redis_url: str) -> int:
    """How many keys the Redis of `redis_url` holds (on all masters of a cluster)."""
    client = _client(redis_url)
    try:
        if isinstance(client, redis.RedisCluster):
            return int(client.dbsize(target_nodes=redis.RedisCluster.PRIMARIES))
        return int(client.dbsize())
    finally:
        client.close()


def _client(redis_url: str) -> redis.Redis | redis.RedisCluster:
    if is_cluster_url(redis_url):
        parts = urlsplit(redis_url)
        return redis.RedisCluster(host=parts.hostname or "127.0.0.1", port=parts.port or 6379)
    return redis.Redis.from_url(redis_url)
