"""The SQS JSON 1.0 endpoint: `POST /` with `X-Amz-Target: AmazonSQS.<Action>`.

Reads the body once and verifies the request's signature over it before anything else
(gateway/auth): the verified key's account is the account every queue name and URL of
the request is resolved in. Then parses the target and the JSON body, runs the action,
and writes the response or the error exactly as SQS does (status, `__type`, `message`,
`x-amzn-query-error`).
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from control_plane.errors import ControlPlaneError
from gateway.auth.authenticator import authenticate
from gateway.auth.errors import AuthError
from gateway.broker import Broker
from gateway.request_body import BodyTooLarge, read_body
from gateway.sqs.actions import ACTIONS, SqsContext
from gateway.sqs.errors import SqsError

log = logging.getLogger(__name__)

CONTENT_TYPE = "application/x-amz-json-1.0"
# The largest legal request is a batch of ten 1 MiB messages plus attributes and base64.
MAX_REQUEST_BYTES = 16 * 1024 * 1024
_TARGET_PREFIX = "AmazonSQS."


async def sqs_endpoint(request: Request) -> Response:
    request_id = str(uuid.uuid4())
    try:
        result = await _dispatch(request)
    except SqsError as exc:
        return _error(exc, request_id)
    except (ControlPlaneError, AuthError) as exc:
        return _error(
            SqsError(
                exc.sqs_code, str(exc), http_status=exc.http_status, sender_fault=exc.sender_fault
            ),
            request_id,
        )
    except Exception:
        log.exception("SQS request %s failed", request_id)
        return _error(
            SqsError(
                "InternalError",
                "We encountered an internal error. Please try again.",
                http_status=500,
                sender_fault=False,
            ),
            request_id,
        )
    return Response(
        orjson.dumps(result),
        media_type=CONTENT_TYPE,
        headers={"x-amzn-RequestId": request_id},
    )


async def _dispatch(request: Request) -> dict[str, Any]:
    try:
        body = await read_body(request, MAX_REQUEST_BYTES)
    except BodyTooLarge as exc:
        raise SqsError("RequestTooLarge", str(exc), http_status=413) from exc
    principal = await authenticate(request, body)
    target = request.headers.get("x-amz-target", "")
    if not target.startswith(_TARGET_PREFIX):
        raise SqsError("InvalidAction", "Missing or invalid X-Amz-Target header.")
    handler = ACTIONS.get(target.removeprefix(_TARGET_PREFIX))
    if handler is None:
        raise SqsError(
            "InvalidAction",
            f"The action {target.removeprefix(_TARGET_PREFIX)} is not valid for this endpoint.",
        )
    try:
        params = orjson.loads(body) if body else {}
    except orjson.JSONDecodeError as exc:
        raise SqsError("SerializationException", f"Malformed JSON request body: {exc}") from exc
    if not isinstance(params, dict):
        raise SqsError("SerializationException", "The request body must be a JSON object.")
    broker: Broker = request.app.state.broker
    base_url = request.app.state.public_url or f"{request.url.scheme}://{request.url.netloc}"
    context = SqsContext(
        broker, principal.account_id, base_url, request.app.state.max_message_bytes
    )
    return await handler(context, params)


def _error(exc: SqsError, request_id: str) -> Response:
    return Response(
        orjson.dumps({"__type": exc.type_name, "message": exc.message}),
        status_code=exc.http_status,
        media_type=CONTENT_TYPE,
        headers={"x-amzn-query-error": exc.query_error, "x-amzn-RequestId": request_id},
    )
