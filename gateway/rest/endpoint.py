"""One REST request, from bytes to bytes, in a fixed order:

1. read the body, at most MAX_REQUEST_BYTES (413 past it);
2. authenticate (401): a bearer token, or SigV4 over that body;
3. decode and validate the body or query string into the operation's Struct (400);
4. run the handler, which validates what depends on the queue before it changes anything;
5. encode the result, or the error as `{"error": {"code", "message"}}`.

The core's errors are translated to REST errors here, at one boundary; anything
else is a fault of ours, logged with its traceback and answered 500 without details.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response

from gateway import metrics
from gateway.base_url import base_url
from gateway.core.broker import Broker
from gateway.core.errors import CoreError
from gateway.request_body import BodyTooLarge, ClientGone, read_body
from gateway.rest import codec
from gateway.rest.auth import CHALLENGE, authenticate_rest
from gateway.rest.context import RestContext
from gateway.rest.errors import InternalError, RestError, TooLarge, Unauthorized, from_core
from gateway.rest.operations import Operation

log = logging.getLogger(__name__)

JSON = "application/json"
# The largest legal request: a batch of 100 messages whose bodies and attributes add up
# to the largest MaximumMessageSize, with JSON escapes and base64 inflating them.
MAX_REQUEST_BYTES = 8 * 1024 * 1024


def endpoint(op: Operation) -> Callable[[Request], Awaitable[Response]]:
    action = op.operation_id

    async def handle(request: Request) -> Response:
        started_s = time.perf_counter()
        response = await serve(request)
        metrics.observe_request("rest", action, started_s, response.status_code)
        return response

    async def serve(request: Request) -> Response:
        try:
            result = await _run(op, request)
        except ClientGone:
            log.debug("the client left before its body arrived")
            return Response(status_code=400)
        except RestError as exc:
            return error_response(exc)
        except CoreError as exc:
            return error_response(from_core(exc))
        except Exception:
            log.exception("REST request %s %s failed", op.method, op.path)
            internal = InternalError("InternalError", "We encountered an internal error.")
            return error_response(internal)
        if op.response is None:
            return Response(status_code=op.status)
        return Response(codec.encode(result), op.status, media_type=JSON)

    handle.__name__ = op.handler.__name__
    return handle


async def _run(op: Operation, request: Request) -> object:
    try:
        body = await read_body(request, MAX_REQUEST_BYTES)
    except BodyTooLarge as exc:
        raise TooLarge("RequestTooLarge", str(exc)) from exc
    principal = await authenticate_rest(request, body)
    given: object = None
    if op.body is not None:
        given = codec.decode_body(body, op.body, op.body_required)
    elif op.query is not None:
        given = codec.decode_query(request.query_params, op.query)
    broker: Broker = request.app.state.broker
    ctx = RestContext(broker, principal.account_id, base_url(request), request.path_params)
    return await op.handler(ctx, given)


def error_response(exc: RestError) -> Response:
    headers = {}
    if isinstance(exc, Unauthorized):
        headers["www-authenticate"] = CHALLENGE
    return Response(codec.encode(exc.body()), exc.http_status, headers, media_type=JSON)
