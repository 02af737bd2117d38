"""Acknowledged pub/sub: a publisher learns from PUBLISH how many processes received a
message, and waits until that many have acted on it.

Pub/sub alone only says a message was sent: the receivers read it whenever their loops
get to it. Where the publisher must not go on before they have (an invalidated cache
entry, a new listener that others must start publishing to), each receiver pushes to a
list named after the message's nonce once it has acted, and the publisher pops that list
as many times as PUBLISH counted receivers. A receiver whose subscription is counted but
cut silently would never acknowledge: the publisher stops waiting after ACK_WAIT_S and
logs it.

On a Redis Cluster, PUBLISH reaches the subscribers of every node (over the cluster bus)
but counts only those of the node it ran on. There `receivers` counts the subscribers of
every node instead, just after the message was published: one that subscribed between
the two is counted without having received it, and the publisher then waits ACK_WAIT_S
for it (and logs it); one that has just started has an empty cache and no peers to
wake anyway.
"""

from __future__ import annotations

import logging
import secrets

from redis.asyncio import RedisCluster

from control_plane.redis_client import RedisClient

log = logging.getLogger(__name__)

ACK_WAIT_S = 1.0
_ACK_TTL_S = 60  # an acknowledgement nobody waits for any more (the publisher gave up)


async def subscribers(redis: RedisClient, channel: str) -> int:
    """How many connections subscribe to `channel`, on every node of a cluster."""
    if isinstance(redis, RedisCluster):
        counts = await redis.pubsub_numsub(channel, target_nodes=RedisCluster.ALL_NODES)
    else:
        counts = await redis.pubsub_numsub(channel)
    return int(counts[0][1]) if counts else 0


async def receivers(redis: RedisClient, channel: str, counted: int) -> int:
    """How many subscribers a message published on `channel` reached, given the count
    PUBLISH (in a script or not) answered: that count itself on one Redis; on a cluster,
    where it is of one node only, every node's subscribers counted now."""
    if isinstance(redis, RedisCluster):
        return await subscribers(redis, channel)
    return counted


async def publish(redis: RedisClient, channel: str, message: str) -> int:
    """PUBLISH, answering how many subscribers it reached (as `receivers` counts)."""
    counted = int(await redis.publish(channel, message))
    return await receivers(redis, channel, counted)


def new_nonce() -> str:
    return secrets.token_hex(8)


async def acknowledge(redis: RedisClient, ack_key: str) -> None:
    async with redis.pipeline(transaction=False) as pipe:
        pipe.rpush(ack_key, 1)
        pipe.expire(ack_key, _ACK_TTL_S)
        await pipe.execute()


async def wait_acknowledged(redis: RedisClient, ack_key: str, receivers: int, what: str) -> None:
    """Returns once `receivers` acknowledgements arrived on `ack_key`, or after ACK_WAIT_S
    without the next one (logged, naming `what` was published)."""
    for acknowledged in range(receivers):
        if await redis.blpop([ack_key], timeout=ACK_WAIT_S) is None:
            log.warning(
                "%s: %d of %d receivers acknowledged within %.0f s",
                what,
                acknowledged,
                receivers,
                ACK_WAIT_S,
            )
            return
