"""`/v1/ws`: the WebSocket API's upgrade, authenticated before it is accepted.

The upgrade request carries a bearer token, in an `Authorization: Bearer <token>` header
or, for browsers (whose WebSocket API cannot set headers), an `access_token` query
parameter. A missing, unknown, revoked or expired token is refused with the REST API's
401 JSON error and `WWW-Authenticate` challenge, as an HTTP response to the upgrade: no
connection is opened, nothing is read or changed. The token's account is the account
every frame acts in; queues are named by bare names, so another account's queues cannot
even be named.
"""

from __future__ import annotations

import logging

from starlette.websockets import WebSocket

from control_plane.errors import ControlPlaneError
from gateway.auth.authenticator import Principal
from gateway.base_url import base_url
from gateway.rest.auth import TokenVerifier
from gateway.rest.context import RestContext
from gateway.rest.endpoint import MAX_REQUEST_BYTES, error_response
from gateway.rest.errors import RestError, Unauthorized, from_foreign
from gateway.ws.session import Session

log = logging.getLogger(__name__)

PATH = "/v1/ws"
# The largest frame a client may send: the REST API's largest request (a full batch).
MAX_FRAME_BYTES = MAX_REQUEST_BYTES
_BEARER = "bearer "


async def websocket_endpoint(websocket: WebSocket) -> None:
    verifier: TokenVerifier = websocket.app.state.token_verifier
    try:
        token = _token(websocket)
        principal = await verifier.principal(token)
    except (RestError, ControlPlaneError) as exc:
        error = exc if isinstance(exc, RestError) else from_foreign(exc)
        log.info("WebSocket upgrade refused (%s): %s", error.code, error.message)
        await websocket.send_denial_response(error_response(error))
        return
    await websocket.accept()
    await Session(
        websocket,
        _context(websocket, principal),
        token=token,
        verifier=verifier,
        token_recheck_s=websocket.app.state.ws_token_recheck_s,
    ).run()


def _token(websocket: WebSocket) -> str:
    header = websocket.headers.get("authorization")
    if header is not None and header.strip():
        if header[: len(_BEARER)].lower() != _BEARER:
            raise Unauthorized(
                "IncompleteSignature",
                "The WebSocket API takes bearer tokens only: `Authorization: Bearer <token>`.",
            )
        return header[len(_BEARER) :].strip()
    token = websocket.query_params.get("access_token")
    if not token:
        raise Unauthorized(
            "MissingAuthenticationToken",
            "The upgrade needs a bearer token: an `Authorization: Bearer <token>` header, "
            "or an `access_token` query parameter.",
        )
    return token


def _context(websocket: WebSocket, principal: Principal) -> RestContext:
    state = websocket.app.state
    return RestContext(
        state.broker,
        principal.account_id,
        base_url(websocket),
        state.max_message_bytes,
        {},
    )
