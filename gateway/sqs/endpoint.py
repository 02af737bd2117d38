"""The SQS endpoint: the JSON 1.0 protocol, and the Query protocol of older SDKs.

JSON 1.0: `POST /` with `X-Amz-Target: AmazonSQS.<Action>` and a JSON body. Query: a
form-encoded `POST` (or a `GET`) with `Action=<Action>`, to `/` or to a queue's URL
(which then stands for its `QueueUrl`), answered in XML.

Reads the body once and verifies the request's signature over it before anything else
(gateway/auth): the verified key's account is the account every queue name and URL of
the request is resolved in. Then runs the action and writes the response or the error
exactly as SQS does in that protocol (status, error type and message, and for JSON the
`x-amzn-query-error` header).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from gateway import metrics
from gateway.auth.authenticator import authenticate
from gateway.auth.errors import AuthError
from gateway.base_url import base_url
from gateway.core.broker import Broker
from gateway.core.errors import CoreError
from gateway.query_form import decode_request
from gateway.request_body import BodyTooLarge, ClientGone, read_body
from gateway.request_ids import request_id as request_id_of
from gateway.sqs import json_protocol, query_protocol
from gateway.sqs.actions import ACTIONS, SqsContext
from gateway.sqs.errors import SqsError, from_core
from gateway.sqs.limits import MAX_PARAMETERS, max_request_bytes

log = logging.getLogger(__name__)

CONTENT_TYPE = "application/x-amz-json-1.0"
# The service a request's SigV4 credential scope must name.
SERVICE = "sqs"
_FORM = "application/x-www-form-urlencoded"
# Bodies from this size on are decoded in a worker thread, so that the event loop serves
# other requests meanwhile (docs/sqs-compatibility.md has the measurements).
OFF_LOOP_BYTES = 256 * 1024


async def sqs_endpoint(request: Request) -> Response:
    started_s = time.perf_counter()
    response, action = await _serve(request)
    known = action if action in ACTIONS else metrics.UNKNOWN_ACTION
    metrics.observe_request("sqs", known, started_s, response.status_code)
    return response


async def _serve(request: Request) -> tuple[Response, str]:
    """The response, and the action the request named ("" if it named none)."""
    request_id = request_id_of(request)
    query = _is_query(request)
    action = ""
    try:
        body = await _body(request)
        principal = await authenticate(request, body, service=SERVICE)
        if query:
            path, url_query = request.url.path, request.scope.get("query_string", b"")
            parse = functools.partial(_query_params, path, url_query, body)
        else:
            target = request.headers.get("x-amz-target", "")
            parse = functools.partial(_json_params, target, body)
        action, params = parse() if len(body) < OFF_LOOP_BYTES else await asyncio.to_thread(parse)
        handler = ACTIONS.get(action)
        if handler is None:
            raise SqsError("InvalidAction", f"The action {action} is not valid for this endpoint.")
        result = await handler(_context(request, principal.account_id, action), params)
    except ClientGone:
        log.debug("request %s: the client left before its body arrived", request_id)
        return Response(status_code=400), action
    except SqsError as exc:
        return _error(exc, request_id, query), action
    except (CoreError, AuthError) as exc:
        return _error(from_core(exc), request_id, query), action
    except Exception:
        log.exception("SQS request %s failed", request_id)
        error = SqsError(
            "InternalError",
            "We encountered an internal error. Please try again.",
            http_status=500,
            sender_fault=False,
        )
        return _error(error, request_id, query), action
    if query:
        xml = query_protocol.render(action, result, request_id)
        return Response(xml, media_type=query_protocol.CONTENT_TYPE), action
    return Response(orjson.dumps(result), media_type=CONTENT_TYPE), action


def _is_query(request: Request) -> bool:
    if "x-amz-target" in request.headers:
        return False
    content_type = request.headers.get("content-type", "")
    return request.method == "GET" or content_type.startswith(_FORM)


async def _body(request: Request) -> bytes:
    broker: Broker = request.app.state.broker
    try:
        return await read_body(request, max_request_bytes(broker.max_message_bytes))
    except BodyTooLarge as exc:
        raise SqsError("RequestTooLarge", str(exc), http_status=413) from exc


def _json_params(target: str, body: bytes) -> tuple[str, dict[str, Any]]:
    return json_protocol.action(target), json_protocol.parse(body)


def _query_params(path: str, url_query: bytes, body: bytes) -> tuple[str, dict[str, Any]]:
    form = decode_request(url_query, body, MAX_PARAMETERS)
    action = form.get("Action", "")
    if not action:
        raise SqsError("MissingAction", "The request must contain the parameter Action.")
    params = query_protocol.parse(action, form.items())
    if path.strip("/") and "QueueUrl" not in params:
        # Posted to a queue's URL: that URL is the queue the action is about.
        params["QueueUrl"] = path
    return action, params


def _context(request: Request, account_id: str, action: str) -> SqsContext:
    broker: Broker = request.app.state.broker
    return SqsContext(broker, account_id, base_url(request), action)


def _error(exc: SqsError, request_id: str, query: bool) -> Response:
    if query:
        return Response(
            query_protocol.render_error(exc, request_id),
            status_code=exc.http_status,
            media_type=query_protocol.CONTENT_TYPE,
        )
    return Response(
        orjson.dumps({"__type": exc.type_name, "message": exc.message}),
        status_code=exc.http_status,
        media_type=CONTENT_TYPE,
        headers={"x-amzn-query-error": exc.query_error},
    )
