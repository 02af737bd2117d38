"""Wake-ups: a long poll sleeps until its subscription may have something to deliver.

Anything that makes a message deliverable (an append, a delay registered, a visibility
set to zero) calls `notify`; every listener on that subscription wakes at once. A
listener is registered *before* the caller looks for work, so a notify that lands
between the look and the wait is not lost. The caller bounds each wait by the earlier of
its own deadline and the subscription's next due timer, so no one polls in a loop.

Across processes the same signal travels over Redis pub/sub: `notify` also queues the
subscription id for one background publisher (so a send never waits on it), and one
background subscriber wakes local listeners for what other processes publish. Messages
on the channel are "<origin id>:<subscription id> <subscription id>..." (the ids a
burst of notifies named, in one PUBLISH); a process ignores its own. On a Redis Cluster
the channel is the ordinary (not sharded) one, which every node delivers. Pub/sub
is best-effort: a wake-up lost while a connection is down costs a waiting poll its early
return (it still ends at its deadline or its next timer), never a message.

An empty look is shared (`mark_idle`, `idle_mark`): a long poll that found nothing
deliverable, and was not woken while it looked, marks its subscription idle, with the
subscription's next due timer; polls that begin after it take the mark instead of
looking again, until a notify for the subscription clears it, the timer falls due, or
IDLE_MARK_MS pass. 5 000 long polls arriving at an empty queue made 10 000 Redis calls
(a claim and a read of the next timer each) and 5 000 claims more when they timed out;
with the mark they make a few dozen (docs/performance.md, "Under abuse"). The mark is as good as
the wake-ups a waiting poll relies on already; IDLE_MARK_MS bounds what a wake-up lost
on its way from another process costs the polls that begin later.

A notify wakes every listener of its stream at once; were each to look, a send to a
queue with 5 000 polls waiting would make 5 000 claims for one message. So a look is
registered while it runs (`looking`), and a poll coming back from its wait takes part in
one in flight instead of starting its own (`look_in_flight`), then sees what it left:
the mark, or another look. A notify drops the registered looks with the marks: only a
look begun after a stream's latest notify can stand for a poll that notify woke. Polls
that have not waited yet look for themselves, so that receivers of a busy queue keep
claiming side by side.

Only while another process listens: a process alone on the channel (`tidemq up`)
publishes nothing, which under single-message sends saved a Redis round trip, and the
reading of its own message back, per send (a tenth of the event loop's work). A process
that subscribes announces itself ("<origin id>:+<nonce>") and waits until every process
already listening has acknowledged (control_plane/acked_pubsub.py), so none of them
sends a wake-up it would miss once it serves. Each process counts the channel's other
subscribers again every PEER_CHECK_S, to stop publishing once the others are gone.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import NamedTuple

from control_plane.acked_pubsub import (
    acknowledge,
    new_nonce,
    publish,
    subscribers,
    wait_acknowledged,
)
from control_plane.deadlines import Deadlines
from control_plane.redis_client import REDIS_ERRORS, RedisClient, open_pubsub
from control_plane.redis_values import as_text

log = logging.getLogger(__name__)

CHANNEL = "tq:wake"
PEER_CHECK_S = 5.0
_ANNOUNCE = "+"  # begins an announcement's nonce: no subscription id begins with it
_ACK_PREFIX = "tq:wake-ack:"
_RETRY_S = 1.0
# How long an empty look at a subscription stands for the polls that begin after it.
IDLE_MARK_MS = 1_000


class IdleMark(NamedTuple):
    expires_ms: int  # the mark stands until then: IDLE_MARK_MS after it, or next_due_ms
    next_due_ms: int | None  # the subscription's earliest timer, as the look found it


class Listener:
    def __init__(self, deadlines: Deadlines) -> None:
        self._deadlines = deadlines
        self._woken = False
        self._waiter: asyncio.Future[None] | None = None

    @property
    def woken(self) -> bool:
        """Whether a notify came since the last wait (or since the listener began)."""
        return self._woken

    def wake(self) -> None:
        self._woken = True
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def wait(self, timeout_s: float) -> bool:
        """True if woken (since the last wait), False if the timeout passed first. The
        timeout ends in its turn (control_plane/deadlines.py): under thousands ending at
        once, up to a few hundred milliseconds late."""
        if not self._woken and timeout_s > 0:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._deadlines.wait(self._waiter, timeout_s)
            finally:
                self._waiter = None
        woken = self._woken
        self._woken = False
        return woken


class WakeUps:
    """Not thread-safe: use from the event loop that owns it."""

    def __init__(self, peer_check_s: float = PEER_CHECK_S) -> None:
        self._listeners: defaultdict[str, set[Listener]] = defaultdict(set)
        self._deadlines = Deadlines()
        self._origin = secrets.token_hex(6)
        self._outbox: asyncio.Queue[str] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._peer_check_s = peer_check_s
        # Whether another process listens on the channel; and how many announcements
        # arrived, by which a count of subscribers taken meanwhile is known to be stale.
        self._peers_listen = False
        self._announcements = 0
        self._subscribed = False
        # Subscriptions found idle, by the key their notifies name (a topic's stream
        # wakes every subscription of it): cleared by the next notify of that key.
        self._idle: dict[str, dict[str, IdleMark]] = {}
        # Looks in flight begun since the key's latest notify: done when they end.
        self._looks: dict[str, dict[str, asyncio.Future[None]]] = {}

    def peers_listen(self) -> bool:
        """Whether another process is known to listen: wake-ups are being published."""
        return self._peers_listen

    def notify(self, subscription_id: str) -> None:
        self._wake_local(subscription_id)
        if self._outbox is not None and self._peers_listen:
            self._outbox.put_nowait(subscription_id)

    def mark_idle(
        self,
        listener: Listener,
        key: str,
        subscription_id: str,
        now_ms: int,
        next_due_ms: int | None,
    ) -> None:
        """`listener`'s look (begun after its last wait) found nothing deliverable for
        `subscription_id`, whose earliest timer is `next_due_ms`: polls beginning after
        it may take that for their own look. Not if a notify of `key` came meanwhile
        (the look may have missed what it announced)."""
        if listener.woken:
            return
        expires_ms = now_ms + IDLE_MARK_MS
        if next_due_ms is not None:
            expires_ms = min(expires_ms, next_due_ms)
        if expires_ms > now_ms:
            self._idle.setdefault(key, {})[subscription_id] = IdleMark(expires_ms, next_due_ms)

    def idle_mark(self, key: str, subscription_id: str, now_ms: int) -> IdleMark | None:
        """The standing mark of `subscription_id` (see `mark_idle`), if any. Take it only
        with a listener of `key` registered first, as for a look of one's own."""
        marks = self._idle.get(key)
        if marks is None or (mark := marks.get(subscription_id)) is None:
            return None
        if now_ms < mark.expires_ms:
            return mark
        del marks[subscription_id]
        if not marks:
            del self._idle[key]
        return None

    def look_in_flight(self, key: str, subscription_id: str) -> asyncio.Future[None] | None:
        """A look at `subscription_id` in flight, begun since `key`'s latest notify (see
        `looking`): done when it has ended. Wait for it with `asyncio.wait`, which leaves
        it to its other waiters if the wait is cancelled."""
        looks = self._looks.get(key)
        return None if looks is None else looks.get(subscription_id)

    @contextmanager
    def looking(self, key: str, subscription_id: str) -> Iterator[None]:
        """Registers a look at `subscription_id` for its duration (the latest one begun
        is the one registered), for `look_in_flight`."""
        done = asyncio.get_running_loop().create_future()
        self._looks.setdefault(key, {})[subscription_id] = done
        try:
            yield
        finally:
            looks = self._looks.get(key)
            if looks is not None and looks.get(subscription_id) is done:
                del looks[subscription_id]
                if not looks:
                    del self._looks[key]
            done.set_result(None)

    @contextmanager
    def listen(self, subscription_id: str) -> Iterator[Listener]:
        listener = Listener(self._deadlines)
        listeners = self._listeners[subscription_id]
        listeners.add(listener)
        try:
            yield listener
        finally:
            listeners.discard(listener)
            if not listeners:
                self._listeners.pop(subscription_id, None)

    async def start_relay(self, redis: RedisClient) -> None:
        """Starts carrying wake-ups to and from other processes over `redis`; returns once
        subscribed and acknowledged by the processes listening already."""
        self._outbox = asyncio.Queue()
        subscribed = asyncio.Event()
        self._tasks = [
            asyncio.create_task(self._publish(redis, self._outbox), name="wakeups-publish"),
            asyncio.create_task(self._subscribe(redis, subscribed), name="wakeups-subscribe"),
        ]
        await subscribed.wait()

    async def stop_relay(self) -> None:
        tasks, self._tasks, self._outbox = self._tasks, [], None
        for task in tasks:
            task.cancel()
        for task in tasks:
            with suppress(asyncio.CancelledError):
                await task

    def _wake_local(self, subscription_id: str) -> None:
        self._idle.pop(subscription_id, None)
        self._looks.pop(subscription_id, None)  # they may have missed what this announces
        for listener in self._listeners.get(subscription_id, ()):
            listener.wake()

    async def _publish(self, redis: RedisClient, outbox: asyncio.Queue[str]) -> None:
        loop = asyncio.get_running_loop()
        next_check = loop.time() + self._peer_check_s
        while True:
            try:
                async with asyncio.timeout_at(next_check):
                    first = await outbox.get()
            except TimeoutError:
                await self._check_peers(redis)
                next_check = loop.time() + self._peer_check_s
                continue
            pending = {first}
            while not outbox.empty():  # coalesce a burst into one message
                pending.add(outbox.get_nowait())
            try:
                await redis.publish(CHANNEL, f"{self._origin}:{' '.join(sorted(pending))}")
            except REDIS_ERRORS:
                log.warning("could not publish %d wake-ups; other gateways poll on", len(pending))

    async def _subscribe(self, redis: RedisClient, subscribed: asyncio.Event) -> None:
        while True:
            try:
                async with await open_pubsub(redis) as pubsub:
                    await pubsub.subscribe(CHANNEL)
                    self._subscribed = True
                    # Announced beside the reading below, not before it: two processes
                    # starting together each acknowledge the other's announcement.
                    announced = asyncio.create_task(self._announce(redis))
                    announced.add_done_callback(lambda _: subscribed.set())
                    try:
                        async for message in pubsub.listen():
                            if message.get("type") == "message":
                                await self._on_message(redis, as_text(message["data"]))
                    finally:
                        self._subscribed = False
                        announced.cancel()
            except REDIS_ERRORS:
                log.warning("wake-up subscription lost; retrying in %.0f s", _RETRY_S)
                subscribed.set()  # start-up must not hang on an unreachable Redis
                await asyncio.sleep(_RETRY_S)

    async def _announce(self, redis: RedisClient) -> None:
        nonce = new_nonce()
        announcements = self._announcements
        try:
            receivers = await publish(redis, CHANNEL, f"{self._origin}:{_ANNOUNCE}{nonce}")
            self._count_peers(receivers - 1, announcements)  # itself among the receivers
            await wait_acknowledged(redis, _ACK_PREFIX + nonce, receivers - 1, "wake-ups")
        except REDIS_ERRORS:
            pass  # the subscription fails too, and announces again when it is back

    async def _on_message(self, redis: RedisClient, data: str) -> None:
        origin, _, body = data.partition(":")
        if origin == self._origin or not body:
            return
        if body.startswith(_ANNOUNCE):
            self._announcements += 1
            self._peers_listen = True
            await acknowledge(redis, _ACK_PREFIX + body[len(_ANNOUNCE) :])
        else:
            for subscription_id in body.split(" "):
                self._wake_local(subscription_id)

    async def _check_peers(self, redis: RedisClient) -> None:
        announcements = self._announcements
        try:
            listening = await subscribers(redis, CHANNEL)
        except REDIS_ERRORS:
            return  # the subscription fails too, and announces again when it is back
        self._count_peers(listening - (1 if self._subscribed else 0), announcements)

    def _count_peers(self, others: int, announcements_before: int) -> None:
        """Applies a count of the other subscribers, taken since `announcements_before`
        was read: a count of none is stale if an announcement arrived meanwhile."""
        if others > 0:
            self._peers_listen = True
        elif self._announcements == announcements_before:
            self._peers_listen = False
