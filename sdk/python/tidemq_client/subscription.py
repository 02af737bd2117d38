"""A subscription of the WebSocket API (tidemq_client.websocket) and its deliveries.

A Subscription is an async iterator of Deliveries, in the order the server pushed them;
the Connection feeds it from its reader task. The server pushes at most `credit`
messages unsettled, so what waits here is bounded by the credit. When the subscription
ends (unsubscribed, the connection closed, or the server ending it because its queue was
deleted), deliveries not yet taken are dropped: their messages are visible to every
receiver again, and their receipt handles would delete nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from tidemq_client.errors import TidemqError, api_error
from tidemq_client.frames.models import (
    Ack,
    CreditSet,
    EntryResult,
    Extend,
    Nack,
    ReceivedMessage,
    SetCredit,
    Settled,
)

if TYPE_CHECKING:
    from tidemq_client.websocket import Connection

# What a subscription's queue of deliveries holds once it has ended: no more come.
_END = None


class Delivery:
    """A message pushed to a subscription, with the operations that settle it."""

    def __init__(self, subscription: Subscription, message: ReceivedMessage) -> None:
        self.subscription = subscription
        self.message = message

    @property
    def body(self) -> str:
        return self.message.body

    @property
    def receipt_handle(self) -> str:
        return self.message.receipt_handle

    async def ack(self) -> None:
        """Deletes the message; raises the ApiError of its result if that failed."""
        _raise_failed(await self.subscription.ack([self.receipt_handle]))

    async def nack(self, delay_seconds: int = 0) -> None:
        """Makes the message visible again after `delay_seconds`."""
        _raise_failed(await self.subscription.nack([self.receipt_handle], delay_seconds))

    async def extend(self, visibility_timeout_s: int) -> None:
        """Keeps the message invisible for `visibility_timeout_s` more seconds."""
        _raise_failed(await self.subscription.extend([self.receipt_handle], visibility_timeout_s))


class Subscription:
    """The deliveries of one queue (or one pull subscription of a topic) on a connection,
    in the order they came. Iterating ends when the subscription does (unsubscribe, the
    connection closed by this side); it raises ConnectionClosed or an ApiError when the
    server ended it."""

    def __init__(
        self, connection: Connection, queue: str | None, credit: int, pull: str | None = None
    ) -> None:
        """`queue`, or `pull`: the id of a topic's pull subscription (exactly one)."""
        self.connection = connection
        self.queue = queue
        self.pull = pull
        self.credit = credit
        self._deliveries: asyncio.Queue[Delivery | None] = asyncio.Queue()
        self._error: TidemqError | None = None
        self.ended = False

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Delivery:
        delivery = await self._deliveries.get()
        if delivery is None:  # _END
            self._deliveries.put_nowait(_END)  # every later call ends too
            raise self._stop()
        return delivery

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if not self.ended and not self.connection.closed:
            await self.unsubscribe()

    async def set_credit(self, credit: int) -> None:
        frame = SetCredit(op="credit", **self.names(), credit=credit)
        await self.connection.request(frame, CreditSet)
        self.credit = credit

    async def ack(self, receipt_handles: Sequence[str]) -> list[EntryResult]:
        """Deletes messages; one result per handle (its `error` set where that failed)."""
        frame = Ack(op="ack", **self.names(), receipt_handles=list(receipt_handles))
        return (await self.connection.request(frame, Settled)).results

    async def nack(
        self, receipt_handles: Sequence[str], delay_seconds: int = 0
    ) -> list[EntryResult]:
        frame = Nack(
            op="nack",
            **self.names(),
            receipt_handles=list(receipt_handles),
            delay_seconds=delay_seconds,
        )
        return (await self.connection.request(frame, Settled)).results

    async def extend(
        self, receipt_handles: Sequence[str], visibility_timeout_s: int
    ) -> list[EntryResult]:
        frame = Extend(
            op="extend",
            **self.names(),
            receipt_handles=list(receipt_handles),
            visibility_timeout=visibility_timeout_s,
        )
        return (await self.connection.request(frame, Settled)).results

    async def unsubscribe(self) -> None:
        """Ends the subscription: its unsettled messages become visible again at once."""
        await self.connection.unsubscribe(self.queue, subscription=self.pull)

    def names(self) -> dict[str, Any]:
        """What frames about this subscription name: `queue` or `subscription`."""
        return {"queue": self.queue} if self.queue is not None else {"subscription": self.pull}

    # Called by the Connection only, as frames arrive.

    def _deliver(self, messages: list[ReceivedMessage]) -> None:
        for message in messages:
            self._deliveries.put_nowait(Delivery(self, message))

    def _end(self, error: TidemqError | None) -> None:
        """No more deliveries: those not yet taken are dropped, since ending a subscription
        made their messages visible to every receiver again."""
        if not self.ended:
            self.ended = True
            self._error = error
            while not self._deliveries.empty():
                self._deliveries.get_nowait()
            self._deliveries.put_nowait(_END)

    def _stop(self) -> BaseException:
        return self._error if self._error is not None else StopAsyncIteration()


def _raise_failed(results: list[EntryResult]) -> None:
    for result in results:
        if result.error:
            raise api_error(result.error.code, result.error.message)
