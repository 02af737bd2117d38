"""The ceiling for `tidemq bench`: a bare Starlette POST endpoint under the gateway's
uvicorn settings (uvloop, httptools, no access log, one process).

    python -m tidemq.bench.ceiling --port P

Every POST, on any path, reads the whole request body and answers `{}` as JSON; the
WebSocket endpoint at /v1/ws answers frames as tidemq/bench/ws.py describes. The
bench sends it the same requests as each TideMQ workload, with the same client and
connection count, so the rate it reaches is what Starlette and uvicorn alone allow on
this machine for that request shape; TideMQ's ratio to it is how much of the budget the
broker itself spends. `{}` parses as an empty answer for every SQS action boto3 calls.
"""

from __future__ import annotations

import argparse
import socket

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route, WebSocketRoute

from tidemq.bench.ws import WS_PATH, ceiling_websocket

READY_LINE = "ceiling ready"


async def accept(request: Request) -> Response:
    await request.body()
    return Response(b"{}", media_type="application/json")


def build_app() -> Starlette:
    return Starlette(
        routes=[
            WebSocketRoute(WS_PATH, ceiling_websocket),
            Route("/{path:path}", accept, methods=["POST"]),
        ]
    )


class _Server(uvicorn.Server):
    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            print(READY_LINE, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description="A bare Starlette POST endpoint.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    config = uvicorn.Config(
        build_app(),
        host=args.host,
        port=args.port,
        loop="uvloop",
        http="httptools",
        ws_per_message_deflate=False,  # as tidemq/embedded.py
        lifespan="on",
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=10,
    )
    _Server(config).run()


if __name__ == "__main__":
    main()
