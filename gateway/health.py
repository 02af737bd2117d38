"""Liveness and readiness: `/healthz` answers while the process serves; `/readyz` also
checks that the control plane answers.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from control_plane.errors import ControlPlaneError, redis_boundary
from gateway.broker import Broker


async def healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> Response:
    broker: Broker = request.app.state.broker
    try:
        with redis_boundary():
            await broker.control.redis.ping()
    except ControlPlaneError as exc:
        return JSONResponse({"status": "unavailable", "reason": str(exc)}, status_code=503)
    return JSONResponse({"status": "ok"})
