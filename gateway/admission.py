"""Fair admission: one caller's burst never queues another caller's request behind it.

Served first come, first served, a thousand requests in flight from one client make
every other client's request wait behind all of them (docs/performance.md, "Under
abuse"). Here each HTTP request is first classified by who it says it is from, without
verifying anything (`caller_of`: the access key id of a SigV4 `Credential=`, a bearer
token, a console session cookie, else the client's address), and then admitted to do its
work (authentication, parsing the body, Redis, the log) only while

- fewer than `max_active` requests are doing work, all callers together, and
- fewer than `max_active_per_caller` of its own caller's are.

The others wait, in one FIFO queue per caller; when a slot frees, the callers with
waiting requests (and room under their own cap) are served in turn, round-robin, one
request each. A caller alone gets every slot up to its cap; two callers get the slots in
turn whatever their queues' lengths, so a well-behaved caller's request waits for at
most one request of each other caller, never for a queue of thousands.

The classification is a claim: a request that lies about its key is refused by
authentication once admitted, and until then it waited in the queue of the key it
named. A flood of made-up keys is as many callers; each waits for its turn behind the
others' first requests, and their cost is bounded by `max_active` (and by the
connection cap, `TIDEMQ_MAX_CONNECTIONS`, on how many can wait at all).

A long poll does no work while it waits for messages: `parked()` around that wait gives
its slot back, and takes one again (in turn, like any request) before it looks again.

WebSocket sessions are not admitted here: they run for hours, and their frames are
already read one at a time with TCP pushing back (tidemq/embedded.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.auth.console_sessions import COOKIE

DEFAULT_MAX_ACTIVE = 128
DEFAULT_MAX_ACTIVE_PER_CALLER = 32
# A caller named by a longer claim is named by its first this many characters: a key id
# is 20, a bearer token 47; a longer name buys no other queue.
_MAX_CALLER_CHARS = 64
_CREDENTIAL = b"Credential="
_SESSION_COOKIE = COOKIE.encode() + b"="


@dataclass(frozen=True, slots=True)
class AdmissionLimits:
    max_active: int = DEFAULT_MAX_ACTIVE
    max_active_per_caller: int = DEFAULT_MAX_ACTIVE_PER_CALLER

    def __post_init__(self) -> None:
        if not 1 <= self.max_active_per_caller <= self.max_active:
            raise ValueError(
                "admission limits must satisfy 1 <= max_active_per_caller <= max_active "
                f"(got {self.max_active_per_caller} and {self.max_active})"
            )


class FairScheduler:
    """The slots, the per-caller queues and the round-robin between them.

    Not thread-safe: one event loop's requests. A waiter cancelled while it waits leaves
    its queue; one cancelled just after it was granted a slot gives the slot back.
    """

    def __init__(self, limits: AdmissionLimits) -> None:
        self.limits = limits
        self._active_total = 0
        self._active: dict[str, int] = {}
        self._waiting: dict[str, deque[asyncio.Future[None]]] = {}
        # Callers with a request waiting and room under their own cap, in serving order.
        self._turns: deque[str] = deque()
        self._in_turns: set[str] = set()
        # Requests inside `parked()`: admitted, holding no slot while they wait.
        self.parked = 0
        self._queued = 0  # requests waiting for a slot

    @property
    def active(self) -> int:
        """Requests holding a slot."""
        return self._active_total

    @property
    def in_flight(self) -> int:
        """Requests begun and not ended: doing work, waiting for a slot, or parked."""
        return self._active_total + self._queued + self.parked

    def active_of(self, caller: str) -> int:
        return self._active.get(caller, 0)

    def waiting_of(self, caller: str) -> int:
        queue = self._waiting.get(caller)
        return sum(1 for future in queue if not future.done()) if queue else 0

    async def acquire(self, caller: str) -> None:
        """Returns once the caller holds a slot (at once if there is room and none of
        its requests is waiting before this one); `release(caller)` gives it back."""
        if caller not in self._waiting and self._has_room(caller):
            self._grant(caller)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(caller, deque()).append(future)
        self._queued += 1
        self._offer_turn(caller)
        self._dispatch()  # a slot may be free while this caller was at its cap
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.release(caller)  # granted, then cancelled before it could run
            else:
                self._forget(caller, future)
            raise

    def release(self, caller: str) -> None:
        held = self._active[caller] - 1
        if held:
            self._active[caller] = held
        else:
            del self._active[caller]
        self._active_total -= 1
        self._offer_turn(caller)
        self._dispatch()

    def _has_room(self, caller: str) -> bool:
        return (
            self._active_total < self.limits.max_active
            and self._active.get(caller, 0) < self.limits.max_active_per_caller
        )

    def _grant(self, caller: str) -> None:
        self._active[caller] = self._active.get(caller, 0) + 1
        self._active_total += 1

    def _offer_turn(self, caller: str) -> None:
        """Puts the caller in the round if it has a request waiting and room of its own."""
        if (
            caller in self._waiting
            and caller not in self._in_turns
            and self._active.get(caller, 0) < self.limits.max_active_per_caller
        ):
            self._turns.append(caller)
            self._in_turns.add(caller)

    def _dispatch(self) -> None:
        while self._turns and self._active_total < self.limits.max_active:
            caller = self._turns.popleft()
            self._in_turns.discard(caller)
            queue = self._waiting[caller]
            while queue and queue[0].done():
                queue.popleft()  # cancelled while waiting
            if queue:
                self._grant(caller)
                self._queued -= 1
                queue.popleft().set_result(None)
            if not queue:
                del self._waiting[caller]
            else:
                self._offer_turn(caller)  # to the back of the round

    def _forget(self, caller: str, future: asyncio.Future[None]) -> None:
        self._queued -= 1  # removed here, or already dropped by `_dispatch`
        queue = self._waiting.get(caller)
        if queue is None:
            return
        with contextlib.suppress(ValueError):
            queue.remove(future)
        if not queue:
            del self._waiting[caller]
            if caller in self._in_turns:
                self._in_turns.discard(caller)
                self._turns.remove(caller)


def caller_of(scope: Scope) -> str:
    """Who the request claims to come from, read from its headers and never verified:
    `key:<access key id>` (SigV4), `token:<bearer token>`, `session:<console cookie>`,
    else `ip:<client address>`."""
    authorization = cookie = None
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            authorization = value
        elif name == b"cookie":
            cookie = value
    if authorization is not None:
        if authorization[:7].lower() == b"bearer ":
            return "token:" + _name(authorization[7:].strip())
        start = authorization.find(_CREDENTIAL)
        if start >= 0:
            start += len(_CREDENTIAL)
            end = authorization.find(b"/", start, start + _MAX_CALLER_CHARS + 1)
            return "key:" + _name(authorization[start : end if end >= 0 else None])
    if cookie is not None:
        start = cookie.find(_SESSION_COOKIE)
        if start >= 0:
            start += len(_SESSION_COOKIE)
            end = cookie.find(b";", start)
            return "session:" + _name(cookie[start : end if end >= 0 else None])
    client = scope.get("client")
    return f"ip:{client[0]}" if client else "ip:-"


def _name(claim: bytes) -> str:
    return claim[:_MAX_CALLER_CHARS].decode("latin-1")


@dataclass(slots=True)
class _Ticket:
    scheduler: FairScheduler
    caller: str
    held: bool = True


_TICKET: contextvars.ContextVar[_Ticket | None] = contextvars.ContextVar(
    "admission_ticket", default=None
)


class AdmissionMiddleware:
    """ASGI middleware admitting each HTTP request through a FairScheduler."""

    def __init__(self, app: ASGIApp, scheduler: FairScheduler) -> None:
        self.app = app
        self.scheduler = scheduler

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        caller = caller_of(scope)
        await self.scheduler.acquire(caller)
        ticket = _Ticket(self.scheduler, caller)
        token = _TICKET.set(ticket)
        try:
            await self.app(scope, receive, send)
        finally:
            _TICKET.reset(token)
            if ticket.held:
                self.scheduler.release(caller)


@contextlib.asynccontextmanager
async def parked() -> AsyncIterator[None]:
    """Around a wait that does no work (a long poll waiting for messages): the request's
    slot serves others meanwhile, and is taken back, in turn, before the work resumes.
    Outside an admitted request (a WebSocket session, a background task), nothing."""
    ticket = _TICKET.get()
    if ticket is None or not ticket.held:
        yield
        return
    scheduler = ticket.scheduler
    ticket.held = False
    scheduler.release(ticket.caller)
    scheduler.parked += 1
    try:
        yield
    finally:
        scheduler.parked -= 1
    # Not on an exception: the request is ending, and takes no slot again.
    await scheduler.acquire(ticket.caller)
    ticket.held = True
