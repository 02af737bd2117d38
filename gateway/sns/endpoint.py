"""The SNS endpoint: the Query protocol that boto3's `sns` client and the AWS CLI speak.

A form-encoded `POST /` (or a `GET /` with the form in its URL) with `Action=<Action>`,
answered in XML. gateway/aws_endpoint.py sends here what is signed for the `sns`
service, and SNS's unsigned links (gateway/sns/links.py).

Reads the body once (at most gateway/sns/limits.py's MAX_REQUEST_BYTES) and verifies the
request's signature over it, scoped to `sns`, before anything else: the verified key's
account is the account the action runs in. A link is served without a signature, to its
own two actions only. Then parses the form by the action's input shape, runs the action
(gateway/sns/actions) and writes its result or its error exactly as SNS does.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from gateway import metrics
from gateway.auth import sigv4
from gateway.auth.authenticator import authenticate
from gateway.auth.errors import AuthError, MissingAuthenticationToken
from gateway.base_url import base_url
from gateway.core.broker import Broker
from gateway.core.errors import CoreError
from gateway.query_form import decode_request
from gateway.request_body import BodyTooLarge, ClientGone, read_body
from gateway.request_ids import request_id as request_id_of
from gateway.sns import links, query_protocol
from gateway.sns.actions import ACTIONS, Handler, SnsContext
from gateway.sns.errors import SnsError, from_core, internal_error
from gateway.sns.limits import MAX_PARAMETERS, MAX_REQUEST_BYTES

log = logging.getLogger(__name__)

# The service a request's SigV4 credential scope must name.
SERVICE = "sns"
# Bodies from this size on are decoded in a worker thread, so that the event loop serves
# other requests meanwhile (as on the SQS endpoint: docs/sqs-compatibility.md).
OFF_LOOP_BYTES = 256 * 1024


async def sns_endpoint(request: Request) -> Response:
    started_s = time.perf_counter()
    response, action = await _serve(request)
    known = action if action in ACTIONS else metrics.UNKNOWN_ACTION
    metrics.observe_request("sns", known, started_s, response.status_code)
    return response


async def _serve(request: Request) -> tuple[Response, str]:
    """The response, and the action it ran ("" if the request named none TideMQ serves)."""
    request_id = request_id_of(request)
    action = ""
    try:
        unsigned = links.may_be_unsigned(request)
        body = await _body(request)
        account_id = None
        if unsigned:
            if body:  # its fields would stand over the link's own
                raise MissingAuthenticationToken(sigv4.NO_SIGNATURE)
        else:
            account_id = (await authenticate(request, body, service=SERVICE)).account_id
        url_query = request.scope.get("query_string", b"")
        if len(body) < OFF_LOOP_BYTES:
            action, handler, params = _parse(url_query, body, unsigned)
        else:
            action, handler, params = await asyncio.to_thread(_parse, url_query, body, unsigned)
        broker: Broker = request.app.state.broker
        context = SnsContext(broker, account_id, base_url(request), action)
        result = await handler(context, params)
    except ClientGone:
        log.debug("request %s: the client left before its body arrived", request_id)
        return Response(status_code=400), action
    except SnsError as exc:
        return _error(exc, request_id), action
    except (CoreError, AuthError) as exc:
        return _error(from_core(exc), request_id), action
    except Exception:
        log.exception("SNS request %s failed", request_id)
        return _error(internal_error(), request_id), action
    return Response(
        query_protocol.render(action, result, request_id),
        media_type=query_protocol.CONTENT_TYPE,
    ), action


async def _body(request: Request) -> bytes:
    try:
        return await read_body(request, MAX_REQUEST_BYTES)
    except BodyTooLarge as exc:
        raise SnsError("RequestTooLarge", str(exc), http_status=413) from exc


def _parse(url_query: bytes, body: bytes, unsigned: bool) -> tuple[str, Handler, dict[str, Any]]:
    """The action, its handler and its parameters; an action TideMQ does not serve is
    refused before its parameters are read."""
    form = decode_request(url_query, body, MAX_PARAMETERS)
    action = form.get("Action", "")
    if unsigned and action not in links.UNSIGNED_ACTIONS:
        raise MissingAuthenticationToken(sigv4.NO_SIGNATURE)
    if not action:
        raise SnsError("MissingAction", "The request must contain the parameter Action.")
    handler = ACTIONS.get(action)
    if handler is None:
        raise query_protocol.invalid_action(action)
    return action, handler, query_protocol.parse(action, form.items())


def _error(exc: SnsError, request_id: str) -> Response:
    return Response(
        query_protocol.render_error(exc, request_id),
        status_code=exc.http_status,
        media_type=query_protocol.CONTENT_TYPE,
    )
