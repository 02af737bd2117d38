"""`/v1/ws`: the WebSocket API's upgrade, authenticated before it is accepted.

The upgrade request carries a bearer token, in an `Authorization: Bearer <token>` header
or, for browsers (whose WebSocket API cannot set headers), an `access_token` query
parameter. A missing, unknown, revoked or expired token is refused with a 401 JSON error
in the native APIs' shape (`{"error": {"code", "message"}}`) and a `WWW-Authenticate`
challenge, as an HTTP response to the upgrade: no
connection is opened, nothing is read or changed. The token's account is the account
every frame acts in; queues are named by bare names, so another account's queues cannot
even be named.
"""

from __future__ import annotations

import logging

import msgspec
from starlette.responses import Response
from starlette.websockets import WebSocket

from gateway import metrics
from gateway.auth.bearer import TokenVerifier
from gateway.auth.errors import AuthError
from gateway.core.errors import CoreError
from gateway.native.common import ErrorDetail, ErrorResponse
from gateway.ws.errors import WsError, from_core, unauthorized
from gateway.ws.session import Session

log = logging.getLogger(__name__)

PATH = "/v1/ws"
# The largest frame a client may send: as the REST API's largest request (a batch of 100
# messages whose bodies and attributes add up to the largest MaximumMessageSize).
MAX_FRAME_BYTES = 8 * 1024 * 1024
CHALLENGE = 'Bearer realm="tidemq"'
_BEARER = "bearer "


async def websocket_endpoint(websocket: WebSocket) -> None:
    verifier: TokenVerifier = websocket.app.state.token_verifier
    try:
        token = _token(websocket)
        principal = await verifier.principal(token)
    except (WsError, CoreError, AuthError) as exc:
        error = exc if isinstance(exc, WsError) else from_core(exc)
        log.info("WebSocket upgrade refused (%s): %s", error.code, error.message)
        await websocket.send_denial_response(_denial(error))
        return
    await websocket.accept()
    metrics.WS_CONNECTIONS.inc()
    try:
        await Session(
            websocket,
            websocket.app.state.broker,
            principal.account_id,
            token=token,
            verifier=verifier,
            token_recheck_s=websocket.app.state.ws_token_recheck_s,
        ).run()
    finally:
        metrics.WS_CONNECTIONS.dec()


def _token(websocket: WebSocket) -> str:
    header = websocket.headers.get("authorization")
    if header is not None and header.strip():
        if header[: len(_BEARER)].lower() != _BEARER:
            raise unauthorized(
                "IncompleteSignature",
                "The WebSocket API takes bearer tokens only: `Authorization: Bearer <token>`.",
            )
        return header[len(_BEARER) :].strip()
    token = websocket.query_params.get("access_token")
    if not token:
        raise unauthorized(
            "MissingAuthenticationToken",
            "The upgrade needs a bearer token: an `Authorization: Bearer <token>` header, "
            "or an `access_token` query parameter.",
        )
    return token


def _denial(error: WsError) -> Response:
    headers = {}
    if error.http_status == 401:
        headers["www-authenticate"] = CHALLENGE
    body = msgspec.json.encode(ErrorResponse(ErrorDetail(error.code, error.message)))
    return Response(body, error.http_status, headers, media_type="application/json")
