"""Liveness and readiness: `/healthz` answers while the process serves; `/readyz` also
checks that the control plane answers.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from gateway.core.broker import Broker
from gateway.core.errors import CoreError


async def healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> Response:
    broker: Broker = request.app.state.broker
    try:
        await broker.ping()
    except CoreError as exc:
        return JSONResponse({"status": "unavailable", "reason": exc.message}, status_code=503)
    return JSONResponse({"status": "ok"})
