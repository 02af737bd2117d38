"""uvicorn's HTTP protocol with a deadline for reading each request.

uvicorn closes idle keep-alive connections, but a client that opens a connection and then
trickles its request line, headers or body a byte at a time holds it (and its memory)
forever; a few hundred such clients exhaust a server (slowloris). Here every request must
arrive whole, headers and body, within `read_timeout_s` of its first byte (or of the
connection's opening); past it the connection is closed. The deadline ends when the
request is complete, so a long poll waiting for messages, or a WebSocket after its
upgrade, is never cut.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger(__name__)

DEFAULT_READ_TIMEOUT_S = 30.0


class DeadlineHttpToolsProtocol(HttpToolsProtocol):
    read_timeout_s = DEFAULT_READ_TIMEOUT_S

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._read_deadline: asyncio.TimerHandle | None = None

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


def with_read_timeout(read_timeout_s: float) -> type[DeadlineHttpToolsProtocol]:
    """The protocol class with this deadline, for uvicorn's `http` setting."""
    return type(
        "DeadlineHttpToolsProtocol",
        (DeadlineHttpToolsProtocol,),
        {"read_timeout_s": read_timeout_s},
    )
