"""Acknowledged pub/sub: a publisher learns from PUBLISH how many processes received a
message, and waits until that many have acted on it.

Pub/sub alone only says a message was sent: the receivers read it whenever their loops
get to it. Where the publisher must not go on before they have (an invalidated cache
entry, a new listener that others must start publishing to), each receiver pushes to a
list named after the message's nonce once it has acted, and the publisher pops that list
as many times as PUBLISH counted receivers. A receiver whose subscription is counted but
cut silently would never acknowledge: the publisher stops waiting after ACK_WAIT_S and
logs it.
"""

from __future__ import annotations

import logging
import secrets

from redis.asyncio import Redis

log = logging.getLogger(__name__)

ACK_WAIT_S = 1.0
_ACK_TTL_S = 60  # an acknowledgement nobody waits for any more (the publisher gave up)


def new_nonce() -> str:
    return secrets.token_hex(8)


async def acknowledge(redis: Redis, ack_key: str) -> None:
    async with redis.pipeline(transaction=False) as pipe:
        pipe.rpush(ack_key, 1)
        pipe.expire(ack_key, _ACK_TTL_S)
        await pipe.execute()


async def wait_acknowledged(redis: Redis, ack_key: str, receivers: int, what: str) -> None:
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
