"""The bench's HTTP/1.1 client against a real uvicorn: keep-alive, the bound on
connections, answers in pieces, a server that closes, a request cancelled halfway."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator

import orjson
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.served_apps import serve
from tidemq.bench.http_client import HttpClient, HttpError

TOKEN = "tqb_test-token"


class _Seen:
    def __init__(self) -> None:
        self.client_ports: list[int] = []
        self.in_flight = 0
        self.most_in_flight = 0


def _app(seen: _Seen) -> Starlette:
    async def echo(request: Request) -> Response:
        assert request.client is not None
        seen.client_ports.append(request.client.port)
        return JSONResponse(
            {
                "method": request.method,
                "path": request.url.path,
                "query": request.url.query,
                "authorization": request.headers.get("authorization"),
                "content_type": request.headers.get("content-type"),
                "body": (await request.body()).decode(),
            },
            status_code=int(request.query_params.get("status", "200")),
        )

    async def slow(request: Request) -> Response:
        seen.in_flight += 1
        seen.most_in_flight = max(seen.most_in_flight, seen.in_flight)
        try:
            await asyncio.sleep(float(request.query_params.get("s", "0.05")))
        finally:
            seen.in_flight -= 1
        return JSONResponse({"slept": True})

    async def chunked(request: Request) -> Response:
        async def pieces() -> AsyncIterator[bytes]:
            for i in range(50):
                yield b"%05d" % i + b"x" * 20_000

        return StreamingResponse(pieces())

    async def closing(request: Request) -> Response:
        assert request.client is not None
        seen.client_ports.append(request.client.port)
        return Response(b"bye", headers={"Connection": "close"})

    return Starlette(
        routes=[
            Route("/echo", echo, methods=["GET", "POST", "DELETE"]),
            Route("/slow", slow, methods=["POST"]),
            Route("/chunked", chunked),
            Route("/closing", closing, methods=["POST"]),
        ]
    )


@pytest.fixture
def served() -> Iterator[tuple[str, _Seen]]:
    seen = _Seen()
    with serve(_app(seen)) as base:
        yield base, seen


def test_a_post_carries_the_token_and_body_and_its_answer_comes_back(
    served: tuple[str, _Seen],
) -> None:
    base, _ = served

    async def go() -> None:
        async with HttpClient(base, TOKEN, 2) as http:
            answer = orjson.loads(await http.post(f"{base}/echo?a=1", b'{"x": 1}'))
            assert answer == {
                "method": "POST",
                "path": "/echo",
                "query": "a=1",
                "authorization": f"Bearer {TOKEN}",
                "content_type": "application/json",
                "body": '{"x": 1}',
            }
            status, body = await http.request("DELETE", f"{base}/echo")
            assert status == 200
            assert orjson.loads(body)["method"] == "DELETE"

    asyncio.run(go())


def test_an_error_status_raises_from_post_and_is_returned_by_request(
    served: tuple[str, _Seen],
) -> None:
    base, _ = served

    async def go() -> None:
        async with HttpClient(base, TOKEN, 1) as http:
            with pytest.raises(HttpError, match="404 from"):
                await http.post(f"{base}/echo?status=404", b"{}")
            status, _ = await http.request("GET", f"{base}/echo?status=503")
            assert status == 503
            # The connection is still good after both.
            assert orjson.loads(await http.post(f"{base}/echo", b"ok"))["body"] == "ok"

    asyncio.run(go())


def test_requests_one_after_another_share_one_connection(served: tuple[str, _Seen]) -> None:
    base, seen = served

    async def go() -> None:
        async with HttpClient(base, TOKEN, 4) as http:
            for i in range(20):
                await http.post(f"{base}/echo", b"%d" % i)

    asyncio.run(go())
    assert len(seen.client_ports) == 20
    assert len(set(seen.client_ports)) == 1


def test_at_most_connections_requests_are_in_flight(served: tuple[str, _Seen]) -> None:
    base, seen = served

    async def go() -> None:
        async with HttpClient(base, TOKEN, 3) as http:
            await asyncio.gather(*(http.post(f"{base}/slow", b"{}") for _ in range(12)))

    asyncio.run(go())
    assert seen.most_in_flight == 3


def test_an_answer_in_many_chunks_arrives_whole(served: tuple[str, _Seen]) -> None:
    base, _ = served

    async def go() -> bytes:
        async with HttpClient(base, TOKEN, 1) as http:
            status, body = await http.request("GET", f"{base}/chunked")
            assert status == 200
            return body

    body = asyncio.run(go())
    assert body == b"".join(b"%05d" % i + b"x" * 20_000 for i in range(50))


def test_a_connection_the_server_closes_is_not_used_again(served: tuple[str, _Seen]) -> None:
    base, seen = served

    async def go() -> None:
        async with HttpClient(base, TOKEN, 1) as http:
            for _ in range(3):
                assert await http.post(f"{base}/closing", b"") == b"bye"

    asyncio.run(go())
    assert len(set(seen.client_ports)) == 3


def test_a_request_cancelled_halfway_leaves_its_connection_behind(
    served: tuple[str, _Seen],
) -> None:
    base, seen = served

    async def go() -> None:
        async with HttpClient(base, TOKEN, 1) as http:
            await http.post(f"{base}/echo", b"first")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.05):
                    await http.post(f"{base}/slow?s=0.5", b"{}")
            # Its late answer must not be taken for this one's.
            answer = orjson.loads(await http.post(f"{base}/echo", b"after"))
            assert answer["body"] == "after"

    asyncio.run(go())
    first, after = seen.client_ports
    assert first != after


def test_a_url_of_another_server_is_refused(served: tuple[str, _Seen]) -> None:
    base, _ = served

    async def go() -> None:
        async with HttpClient(base, TOKEN, 1) as http:
            with pytest.raises(ValueError, match="is not on"):
                await http.post("http://127.0.0.1:1/echo", b"")

    asyncio.run(go())
    with pytest.raises(ValueError, match="plain http"):
        HttpClient("https://example.com", TOKEN, 1)
