"""The gateway's uvicorn server, accepting connections in bounded rounds.

uvicorn listens with `loop.create_server`, and the event loop accepts every connection
waiting in the listen backlog at once (uvloop's libuv accepts until the backlog is
empty; asyncio up to the backlog, 2 048): a storm of thousands of connections is set up,
read and parsed in one turn of the loop, and every other request, on connections already
open, waits for all of it (1.4-1.9 s for 5 000 at once, docs/performance.md, "Under
abuse"). Here the listening socket is read by our own callback, which accepts at most
`accept_per_round` connections each time the loop polls it; the rest stay in the
kernel's backlog until the next turn, after the requests already in hand have moved on.
A storm is then taken in at some thousands of connections a second, and no turn of the
loop holds more than a round of new ones.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import sys
from collections.abc import Callable
from typing import Any

import uvicorn
from uvicorn.config import STARTUP_FAILURE

log = logging.getLogger(__name__)

DEFAULT_ACCEPT_PER_ROUND = 16
# After the process ran out of file descriptors, the pause before accepting again (as
# asyncio's own accept loop): the backlog keeps the connections meanwhile.
_ACCEPT_RETRY_S = 1.0

ProtocolFactory = Callable[[], asyncio.Protocol]


class RoundsAcceptor:
    """Accepts connections from a listening socket, at most `per_round` each time the
    loop finds it readable, and hands each to `protocol_factory` as `create_server`
    would. Duck-types the part of `asyncio.Server` uvicorn uses: `close`,
    `wait_closed`, `sockets`."""

    def __init__(self, sock: socket.socket, protocol_factory: ProtocolFactory, per_round: int):
        self.sockets = [sock]
        self._sock = sock
        self._factory = protocol_factory
        self._per_round = per_round
        self._loop = asyncio.get_running_loop()
        self._opening: set[asyncio.Task[Any]] = set()
        self._closed = False
        sock.setblocking(False)

    def start(self) -> None:
        self._loop.add_reader(self._sock.fileno(), self.accept_round)

    def accept_round(self) -> None:
        """Accepts what waits in the backlog, `per_round` connections at most."""
        for _ in range(self._per_round):
            try:
                conn, _ = self._sock.accept()
            except (BlockingIOError, InterruptedError):
                return  # the backlog is empty
            except ConnectionAbortedError:
                continue  # the client gave up before we took it
            except OSError as exc:
                # EMFILE, ENFILE, ENOBUFS, ENOMEM: connections wait in the backlog.
                log.error(
                    "cannot accept connections (%s); retrying in %.0f s", exc, _ACCEPT_RETRY_S
                )
                self._loop.remove_reader(self._sock.fileno())
                self._loop.call_later(_ACCEPT_RETRY_S, self._resume)
                return
            conn.setblocking(False)
            task = self._loop.create_task(self._open(conn))
            self._opening.add(task)
            task.add_done_callback(self._opening.discard)

    def _resume(self) -> None:
        if not self._closed:
            self._loop.add_reader(self._sock.fileno(), self.accept_round)

    async def _open(self, conn: socket.socket) -> None:
        try:
            await self._loop.connect_accepted_socket(self._factory, conn)
        except OSError as exc:  # the client reset the connection as it was set up
            log.debug("an accepted connection failed to open: %s", exc)
            conn.close()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._loop.remove_reader(self._sock.fileno())
        self._sock.close()

    async def wait_closed(self) -> None:
        if self._opening:
            await asyncio.gather(*self._opening, return_exceptions=True)


class GatewayServer(uvicorn.Server):
    """uvicorn's server on a host and port, accepting in rounds of `accept_per_round`,
    and telling `on_started` once it listens."""

    def __init__(
        self,
        config: uvicorn.Config,
        on_started: Callable[[], None],
        accept_per_round: int = DEFAULT_ACCEPT_PER_ROUND,
    ) -> None:
        super().__init__(config)
        self._on_started = on_started
        self._accept_per_round = accept_per_round

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        # uvicorn's own startup for a host and port, with our acceptor instead of
        # `loop.create_server` (its other cases, sockets, fd and uds, are not ours).
        assert sockets is None
        assert self.config.fd is None
        assert self.config.uds is None
        await self.lifespan.startup()
        if self.lifespan.should_exit:
            sys.exit(STARTUP_FAILURE)
        config = self.config

        def create_protocol() -> asyncio.Protocol:
            protocol: asyncio.Protocol = config.http_protocol_class(  # type: ignore[call-arg]
                config=config, server_state=self.server_state, app_state=self.lifespan.state
            )
            return protocol

        try:
            sock = config.bind_socket()  # logs "Uvicorn running on ..."
        except SystemExit:  # it could not bind, and said why
            await self.lifespan.shutdown()
            raise
        sock.listen(config.backlog)
        acceptor = RoundsAcceptor(sock, create_protocol, self._accept_per_round)
        acceptor.start()
        self.servers = [acceptor]  # type: ignore[list-item]
        self.started = True
        self._on_started()
