"""Reading a request body with a size cap, so an oversize request is refused early."""

from __future__ import annotations

from starlette.requests import ClientDisconnect, Request

from gateway.core.text_rules import parse_int


class BodyTooLarge(Exception):
    pass


class ClientGone(Exception):
    """The client closed the connection (or was closed for sending too slowly) before its
    request's body arrived whole: there is no one to answer."""


async def read_body(request: Request, max_bytes: int) -> bytes:
    declared = parse_int(request.headers.get("content-length", ""))
    if declared is not None and declared > max_bytes:
        raise BodyTooLarge(f"The request body is larger than {max_bytes} bytes.")
    chunks = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > max_bytes:
                raise BodyTooLarge(f"The request body is larger than {max_bytes} bytes.")
            chunks.append(chunk)
    except ClientDisconnect as exc:
        raise ClientGone from exc
    return b"".join(chunks)
