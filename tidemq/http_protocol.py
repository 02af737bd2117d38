"""uvicorn's HTTP protocol with a deadline for reading each request, and new connections'
first requests read in bounded rounds.

uvicorn closes idle keep-alive connections, but a client that opens a connection and then
trickles its request line, headers or body a byte at a time holds it (and its memory)
forever; a few hundred such clients exhaust a server (slowloris). Here every request must
arrive whole, headers and body, within `read_timeout_s` of its first byte (or of the
connection's opening); past it the connection is closed. The deadline ends when the
request is complete, so a long poll waiting for messages, or a WebSocket after its
upgrade, is never cut.

A storm of new connections can also deliver its requests all at once: 4 360 of them
arrived in one turn of the event loop in `long_poll_burst` (docs/performance.md, "Under
abuse"), and parsing them, then starting their tasks, held every other request up for
150 ms. Connections are accepted in rounds (tidemq/http_server.py), but their clients
write when they get to it, and the event loop reads every socket that is ready in one
turn. So a connection's first request is read only while the turn's budget lasts
(`first_requests_per_round`); past it, the connection stops being read and waits, in
order of arrival, for a later turn. Once its first bytes have had their turn, a
connection reads on at once (the rest of its request, and every later request): a
client already served (a keep-alive connection, the well-behaved client's) is never
queued behind a storm of new ones, and how much work it may make is fair admission's
business (gateway/admission.py). The same budget takes connections down
when their clients close them: 2 000 closing in one turn at the end of a burst held the
loop for 120 ms.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any, ClassVar

import msgspec
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from gateway.native.common import ErrorDetail, ErrorResponse

log = logging.getLogger(__name__)

# The REST API's documented error body, as every other error has it.
_MALFORMED_BODY = msgspec.json.encode(
    ErrorResponse(
        ErrorDetail(
            "MalformedHttpRequest",
            "The request is not valid HTTP/1.1: its request line or a header could not "
            "be parsed (a Content-Length must be a number). Nothing was done.",
        )
    )
)

DEFAULT_READ_TIMEOUT_S = 30.0
DEFAULT_FIRST_REQUESTS_PER_ROUND = 16


class ConnectionRounds:
    """One event loop's budget per turn for connections' first requests and closings,
    and the work waiting for a later turn (oldest first): each item is called in its
    turn, and says whether it did the work (False: its connection went meanwhile)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, per_round: int) -> None:
        self._loop = loop
        self._per_round = per_round
        self._left = per_round
        self._turn_pending = False
        self.waiting: deque[Callable[[], bool]] = deque()

    def take(self) -> bool:
        """Whether work may be done now (none is waiting, budget is left)."""
        if self.waiting or not self._left:
            return False
        self._left -= 1
        self._next_turn()
        return True

    def defer(self, work: Callable[[], bool]) -> None:
        self.waiting.append(work)
        self._next_turn()

    def _next_turn(self) -> None:
        # Ready callbacks run once per turn, between two reads of the sockets.
        if not self._turn_pending:
            self._turn_pending = True
            self._loop.call_soon(self._new_turn)

    def _new_turn(self) -> None:
        self._turn_pending = False
        self._left = self._per_round
        while self.waiting and self._left:
            if self.waiting.popleft()():
                self._left -= 1
        if self.waiting or self._left < self._per_round:
            self._next_turn()


class DeadlineHttpToolsProtocol(HttpToolsProtocol):
    read_timeout_s = DEFAULT_READ_TIMEOUT_S
    first_requests_per_round = DEFAULT_FIRST_REQUESTS_PER_ROUND
    # One budget per event loop (tests run gateways on several loops in one process).
    _rounds: ClassVar[weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, ConnectionRounds]] = (
        weakref.WeakKeyDictionary()
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._read_deadline: asyncio.TimerHandle | None = None
        # Its first bytes had their turn: the connection reads on without another.
        self._reads_freely = False
        self._deferred: list[bytes] | None = None  # read while waiting for a turn

    def send_400_response(self, msg: str) -> None:
        """A request the HTTP parser refused (a request line or header it cannot parse,
        such as a Content-Length that is no number) reaches no API, and nothing is done:
        the answer is the REST API's error body (JSON, as every other error), where
        uvicorn's is plain text, which no TideMQ client expects."""
        content = [STATUS_LINE[400]]
        for name, value in self.server_state.default_headers:
            content.extend([name, b": ", value, b"\r\n"])
        content.extend(
            [
                b"content-type: application/json\r\n",
                b"content-length: %d\r\n" % len(_MALFORMED_BODY),
                b"connection: close\r\n",
                b"\r\n",
                _MALFORMED_BODY,
            ]
        )
        self.transport.write(b"".join(content))
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._deferred is not None:
            self._deferred.append(data)  # already waiting: keep the bytes in order
        elif self._reads_freely or self._first_rounds().take():
            self._reads_freely = True
            super().data_received(data)
        else:
            self._deferred = [data]
            self.flow.pause_reading()
            self._first_rounds().defer(self.read_deferred)

    def read_deferred(self) -> bool:
        """Reads what waited for its turn; False if the connection went meanwhile."""
        chunks, self._deferred = self._deferred, None
        if chunks is None or self.transport.is_closing():
            return False
        self._reads_freely = True
        self.flow.resume_reading()
        for chunk in chunks:
            super().data_received(chunk)
        return True

    def eof_received(self) -> bool | None:  # type: ignore[override]
        """The client closed its side: closed at once if the turn's budget allows, else
        kept open (True) until a later turn closes it. A storm of connections closing
        at once (the end of a burst) is then taken down a round at a time."""
        if self._first_rounds().take():
            return None
        self._first_rounds().defer(self._close_deferred)
        return True

    def _close_deferred(self) -> bool:
        if self.transport.is_closing():
            return False
        self.transport.close()
        return True

    def _first_rounds(self) -> ConnectionRounds:
        rounds = self._rounds.get(self.loop)
        if rounds is None:
            rounds = ConnectionRounds(self.loop, self.first_requests_per_round)
            self._rounds[self.loop] = rounds
        return rounds

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        self._disarm()
        super().handle_websocket_upgrade()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._deferred = None  # its turn, when it comes, is skipped
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._read_deadline = self.loop.call_later(self.read_timeout_s, self._too_slow)

    def _disarm(self) -> None:
        if self._read_deadline is not None:
            self._read_deadline.cancel()
            self._read_deadline = None

    def _too_slow(self) -> None:
        self._read_deadline = None
        if not self.transport.is_closing():
            log.info(
                "closed a connection from %s: its request did not arrive within %.0f s",
                self.client,
                self.read_timeout_s,
            )
            self.transport.close()


def with_read_timeout(
    read_timeout_s: float, first_requests_per_round: int = DEFAULT_FIRST_REQUESTS_PER_ROUND
) -> type[DeadlineHttpToolsProtocol]:
    """The protocol class with this deadline and this budget of new connections' first
    requests per turn of the loop, for uvicorn's `http` setting."""
    return type(
        "DeadlineHttpToolsProtocol",
        (DeadlineHttpToolsProtocol,),
        {
            "read_timeout_s": read_timeout_s,
            "first_requests_per_round": first_requests_per_round,
            "_rounds": weakref.WeakKeyDictionary(),
        },
    )
