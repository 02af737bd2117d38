"""The bench's HTTP/1.1 client for the REST workloads: keep-alive connections, each
request's bytes made with one join (its head is made once per method and URL), and
the answer parsed by httptools (C, the parser uvicorn serves with) straight from the
socket: no per-request objects of a client library in between.

Why not aiohttp, which the bench used before: the load generator shares this machine's
cores with the server it measures, and aiohttp spent ~175 us of CPU on a single
publish's request and answer (this client: ~50 us), about what the gateway spends
serving it, so the generator's own work queued up with the server's and showed in
TideMQ's latency and the ceiling's alike (docs/performance.md, "A leaner load
generator"). The Redis peer's client
(tidemq/bench/redis_peer.py) is made the same way.

One request at a time per connection (no pipelining, as browsers and SDKs do); at most
`connections` open. A connection whose answer did not arrive whole (an error, a
timeout, the caller cancelled) is closed, not reused. Chunked answers are taken too
(httptools joins them); a 1xx answer other than the final one is not expected here.
"""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import cast
from urllib.parse import urlsplit

import httptools

# A request not answered by then fails: the run goes on (aiohttp's total timeout was 60 s).
REQUEST_TIMEOUT_S = 60.0


class HttpError(RuntimeError):
    pass


class _Connection(asyncio.Protocol):
    """One keep-alive connection; `exchange` writes a request and waits for its answer."""

    def __init__(self) -> None:
        self._parser = httptools.HttpResponseParser(self)
        self._transport: asyncio.Transport | None = None
        self._answer: asyncio.Future[tuple[int, bytes]] | None = None
        self._body: list[bytes] = []
        self.reusable = True

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # (uvloop's transports are not asyncio.Transport subclasses; they have its methods.)
        self._transport = cast("asyncio.Transport", transport)

    def data_received(self, data: bytes) -> None:
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(HttpError(f"an answer that is not HTTP/1.1: {exc}"))

    def eof_received(self) -> bool:
        self.reusable = False
        return False  # close it

    def connection_lost(self, exc: Exception | None) -> None:
        self.reusable = False
        self._fail(ConnectionError(f"the server closed the connection: {exc or 'EOF'}"))

    # httptools' callbacks
    def on_body(self, body: bytes) -> None:
        self._body.append(body)

    def on_message_complete(self) -> None:
        answer, self._answer = self._answer, None
        self.reusable = self.reusable and self._parser.should_keep_alive()
        if answer is not None and not answer.done():
            answer.set_result((self._parser.get_status_code(), b"".join(self._body)))

    async def exchange(self, request: bytes) -> tuple[int, bytes]:
        assert self._transport is not None
        assert self._answer is None
        self._body = []
        answer: asyncio.Future[tuple[int, bytes]] = asyncio.get_running_loop().create_future()
        self._answer = answer
        self._transport.write(request)
        return await answer

    def close(self) -> None:
        self.reusable = False
        if self._transport is not None:
            self._transport.close()

    def _fail(self, exc: Exception) -> None:
        answer, self._answer = self._answer, None
        if answer is not None and not answer.done():
            answer.set_exception(exc)
        self.close()


class HttpClient:
    """Requests to one server (`base`, an http:// URL) with a bearer token, JSON bodies."""

    def __init__(self, base: str, token: str, connections: int) -> None:
        parts = urlsplit(base)
        if parts.scheme != "http" or parts.hostname is None:
            raise ValueError(f"the bench speaks plain http://, not {base!r}")
        self.base = base.rstrip("/")
        self._host = parts.hostname
        self._port = parts.port or 80
        self._authority = parts.netloc.encode("ascii")
        self._token = token.encode("ascii")
        self._slots = asyncio.Semaphore(connections)
        self._idle: list[_Connection] = []
        self._open: set[_Connection] = set()
        self._heads: dict[tuple[str, str], bytes] = {}

    async def __aenter__(self) -> HttpClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        for connection in self._open:
            connection.close()
        self._open.clear()
        self._idle.clear()

    async def post(self, url: str, body: bytes) -> bytes:
        """The answer's body; HttpError for an answer of 300 or more."""
        status, answer = await self.request("POST", url, body)
        if status >= 300:
            raise HttpError(f"{status} from {url}: {answer[:200]!r}")
        return answer

    async def request(self, method: str, url: str, body: bytes = b"") -> tuple[int, bytes]:
        """(status, body) of one request; raises on a connection that fails meanwhile."""
        head = self._heads.get((method, url))
        if head is None:
            head = self._heads[(method, url)] = self._head(method, url)
        request = b"%s%d\r\n\r\n%s" % (head, len(body), body)
        async with self._slots:
            connection = await self._connection()
            answered = False
            try:
                async with asyncio.timeout(REQUEST_TIMEOUT_S):
                    answer = await connection.exchange(request)
                answered = True
            finally:
                if answered and connection.reusable:
                    self._idle.append(connection)
                else:
                    connection.close()
                    self._open.discard(connection)
        return answer

    async def _connection(self) -> _Connection:
        while self._idle:
            connection = self._idle.pop()
            if connection.reusable:
                return connection
            self._open.discard(connection)
        _, connection = await asyncio.get_running_loop().create_connection(
            _Connection, self._host, self._port
        )
        self._open.add(connection)
        return connection

    def _head(self, method: str, url: str) -> bytes:
        parts = urlsplit(url)
        if (parts.hostname, parts.port or 80) != (self._host, self._port):
            raise ValueError(f"{url} is not on {self._host}:{self._port}")
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        return b"".join(
            (
                f"{method} {target} HTTP/1.1\r\n".encode("ascii"),
                b"Host: %s\r\nAuthorization: Bearer %s\r\n" % (self._authority, self._token),
                b"Content-Type: application/json\r\nContent-Length: ",
            )
        )
