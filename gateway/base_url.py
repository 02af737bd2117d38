"""The base that queue URLs are built on for a request: the deployment's public URL when
one is set, else the scheme and host the client addressed.

`connection.url` gives that host, but it builds and parses the whole URL (path and query
included) on every request: 4 % of the event loop under single-message publishes, for a
value most requests never use. A plain `Host` header (a name or an IPv4 address, and a
port) is taken as it is, which is what Starlette makes of it too; anything else goes
through `connection.url`, so Starlette's own rules (an invalid header is ignored for the
server's address) still decide it.
"""

from __future__ import annotations

import re

from starlette.requests import HTTPConnection

__all__ = ["base_url"]

_PLAIN_HOST = re.compile(r"[A-Za-z0-9.-]+(?::([0-9]{1,5}))?")
_MAX_PORT = 65535
# A WebSocket's queue URLs are the HTTP API's.
_HTTP_SCHEME = {"ws": "http", "wss": "https"}


def base_url(connection: HTTPConnection) -> str:
    """`scheme://host[:port]`, as `connection.url` has them (ws: and wss: as http: and
    https:), or the public URL."""
    public_url: str | None = connection.app.state.public_url
    if public_url:
        return public_url
    host = connection.headers.get("host")
    plain = _PLAIN_HOST.fullmatch(host) if host else None
    if plain is not None and (plain[1] is None or int(plain[1]) <= _MAX_PORT):
        scheme: str = connection.scope.get("scheme", "http")
    else:
        scheme, host = connection.url.scheme, connection.url.netloc
    return f"{_HTTP_SCHEME.get(scheme, scheme)}://{host}"
