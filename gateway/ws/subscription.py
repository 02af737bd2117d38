"""One subscription on a WebSocket connection, to a queue or to a pull subscription of a
topic: messages pushed within its credit.

Credit works like AMQP's prefetch: it bounds how many messages the subscription holds
delivered and unsettled. A message stops counting against it when it is acked or nacked
on this connection, or when its visibility timeout passes (then it may go to another
receiver, and an ack of it later deletes nothing). While there is room, the subscription
long-polls what it consumes (a queue, or a topic's log for a pull subscription; the same
receive the other APIs use, woken at once by a send or a publish) for at most that many
messages, and pushes them in one `deliver` frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from gateway import metrics
from gateway.core.broker import Broker
from gateway.core.consumables import Consumable
from gateway.core.errors import CoreError, ErrorKind
from gateway.native.common import MAX_BATCH_ENTRIES, ErrorDetail
from gateway.native.conversions import received_message
from gateway.ws.frames import Deliver, ServerFrame, Unsubscribed

log = logging.getLogger(__name__)

Send = Callable[[ServerFrame], Awaitable[None]]
# What is consumed, looked up again (a changed setting takes effect on the next poll).
Lookup = Callable[[], Awaitable[Consumable]]
# A long poll's longest wait: the queue is looked up again after it, so that a deleted
# queue ends its subscriptions within this time even if no message ever comes.
POLL_WAIT_MS = 5_000
_STOP_RETRY_S = 0.5


@dataclass(frozen=True, slots=True)
class Source:
    """A queue or a pull subscription, as the frames name it: exactly one of the two."""

    queue: str | None = None
    subscription: str | None = None

    def __str__(self) -> str:
        return (
            f"queue {self.queue}" if self.queue is not None else f"subscription {self.subscription}"
        )


class Subscription:
    def __init__(
        self,
        broker: Broker,
        source: Source,
        lookup: Lookup,
        *,
        credit: int,
        visibility_timeout_ms: int | None,
        send: Send,
    ) -> None:
        self.source = source
        self.credit = credit
        self._broker = broker
        self._lookup = lookup
        self._clock = broker.clock
        self._visibility_timeout_ms = visibility_timeout_ms  # None: the queue's (subscription's)
        self._send = send
        # Receipt handle -> when its visibility timeout ends (ms, the control plane's clock).
        self._unsettled: dict[str, int] = {}
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        # What this subscription added to the WebSocket gauges, taken back when it ends.
        self._counted = False
        self._counted_credit = 0
        self._counted_unsettled = 0

    @property
    def ended(self) -> bool:
        """The server ended it (its queue was deleted), after telling the client."""
        return self._task is not None and self._task.done()

    def start(self) -> None:
        self._counted = True
        metrics.WS_SUBSCRIPTIONS.inc()
        self._count_credit()
        self._task = asyncio.create_task(self._push(), name=f"ws-subscription {self.source}")

    def _count_credit(self) -> None:
        metrics.WS_CREDIT.inc(self.credit - self._counted_credit)
        self._counted_credit = self.credit

    def _count_unsettled(self) -> None:
        metrics.WS_UNSETTLED.inc(len(self._unsettled) - self._counted_unsettled)
        self._counted_unsettled = len(self._unsettled)

    def _uncount(self) -> None:
        """Takes back what the subscription added to the gauges; once, however it ends."""
        if self._counted:
            self._counted = False
            metrics.WS_SUBSCRIPTIONS.dec()
            metrics.WS_CREDIT.dec(self._counted_credit)
            metrics.WS_UNSETTLED.dec(self._counted_unsettled)
            self._counted_credit = self._counted_unsettled = 0

    async def stop(self) -> None:
        """Stops pushing, then makes the unsettled messages visible again at once, so that
        other receivers get them without waiting out their visibility timeouts."""
        self._stopping = True
        while self._task is not None and not self._task.done():
            # Again until it ends: on Python 3.11, asyncio.wait_for anywhere below (a
            # library's, say) can lose a cancellation; the flag ends the loop anyway.
            self._task.cancel()
            await asyncio.wait({self._task}, timeout=_STOP_RETRY_S)
        handles = self._live_handles()
        self._unsettled.clear()
        self._uncount()
        if not handles:
            return
        try:
            consumed = await self._lookup()
            for start in range(0, len(handles), MAX_BATCH_ENTRIES):
                chunk = handles[start : start + MAX_BATCH_ENTRIES]
                await self._broker.change_visibility(consumed, [(h, 0) for h in chunk])
        except Exception:  # the queue may be gone; the timeouts release them anyway
            log.warning("could not release %d messages of %s", len(handles), self.source)

    def set_credit(self, credit: int) -> None:
        self.credit = credit
        if self._counted:
            self._count_credit()
        self._changed.set()

    def settle(self, handles: Iterable[str]) -> None:
        """Acked or nacked: they no longer count against the credit."""
        for handle in handles:
            self._unsettled.pop(handle, None)
        if self._counted:
            self._count_unsettled()
        self._changed.set()

    def forget_unsettled(self) -> None:
        """A seek made every delivery so far stale: none counts against the credit now."""
        self._unsettled.clear()
        self._changed.set()

    def extend(self, handles: Iterable[str], visibility_timeout_ms: int) -> None:
        until_ms = self._clock.now_ms() + visibility_timeout_ms
        for handle in handles:
            if handle in self._unsettled:
                self._unsettled[handle] = until_ms
        self._changed.set()

    def _live_handles(self) -> list[str]:
        now_ms = self._clock.now_ms()
        return [h for h, until_ms in self._unsettled.items() if until_ms > now_ms]

    def _room(self) -> int:
        now_ms = self._clock.now_ms()
        lapsed = [h for h, until_ms in self._unsettled.items() if until_ms <= now_ms]
        for handle in lapsed:
            del self._unsettled[handle]
        if lapsed and self._counted:
            self._count_unsettled()
        return self.credit - len(self._unsettled)

    async def _wait_for_room(self) -> None:
        """Until credit is raised, something is settled, or the next visibility lapses."""
        self._changed.clear()
        timeout_s = None
        if self._unsettled:
            next_ms = min(self._unsettled.values())
            timeout_s = max(next_ms - self._clock.now_ms(), 0) / 1000
        # asyncio.timeout, not wait_for, which on Python 3.11 can swallow a cancellation.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                await self._changed.wait()

    async def _push(self) -> None:
        try:
            while not self._stopping:
                room = self._room()
                if room <= 0:
                    await self._wait_for_room()
                    continue
                # Looked up each round: a changed VisibilityTimeout or a deleted queue
                # (or subscription) takes effect on the next long poll.
                consumed = await self._lookup()
                visibility_timeout_ms = self._visibility_timeout_ms
                if visibility_timeout_ms is None:
                    visibility_timeout_ms = consumed.visibility_timeout_ms
                received = await self._broker.receive(
                    consumed, min(room, MAX_BATCH_ENTRIES), visibility_timeout_ms, POLL_WAIT_MS
                )
                if not received:
                    continue
                until_ms = self._clock.now_ms() + visibility_timeout_ms
                for message in received:
                    self._unsettled[message.delivery.receipt_handle] = until_ms
                self._count_unsettled()
                await self._send(
                    Deliver(
                        queue=self.source.queue,
                        subscription=self.source.subscription,
                        messages=[received_message(message) for message in received],
                    )
                )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if isinstance(exc, CoreError) and exc.kind is ErrorKind.NOT_FOUND:
                self._unsettled.clear()
                reason = ErrorDetail(exc.code, exc.message or f"The {self.source} was deleted.")
            else:
                log.exception("subscription to %s failed", self.source)
                cause = exc.code if isinstance(exc, CoreError) else type(exc).__name__
                reason = ErrorDetail("InternalError", f"The subscription failed: {cause}")
            self._uncount()  # ended by the server: nothing of it is pushed any more
            await self._send(
                Unsubscribed(
                    queue=self.source.queue, subscription=self.source.subscription, reason=reason
                )
            )
