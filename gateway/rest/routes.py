"""The REST API's Starlette routes: one per operation of the route table, the OpenAPI
document at /openapi.json and its HTML rendering at /docs (both open to all), and JSON
errors for unknown /v1 paths and methods."""

from __future__ import annotations

import functools

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from gateway.rest import (  # noqa: F401  (they register)
    archive,
    messages,
    queues,
    subscriptions,
    tasks,
    topics,
)
from gateway.rest.docs_page import render
from gateway.rest.endpoint import JSON, endpoint, error_response
from gateway.rest.errors import NotFound, RestError
from gateway.rest.openapi import document, document_bytes
from gateway.rest.operations import OPERATIONS

PREFIX = "/v1"


def rest_routes() -> list[BaseRoute]:
    routes: list[BaseRoute] = [
        Route(op.path, endpoint(op), methods=[op.method]) for op in OPERATIONS
    ]
    routes += [
        Route("/openapi.json", openapi_json, methods=["GET"]),
        Route("/docs", docs, methods=["GET"]),
    ]
    return routes


async def openapi_json(request: Request) -> Response:
    return Response(document_bytes(), media_type=JSON)


async def docs(request: Request) -> Response:
    return HTMLResponse(_docs_page())


@functools.cache
def _docs_page() -> str:
    return render(document())


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own 404 and 405: JSON errors under /v1, plain text elsewhere."""
    assert isinstance(exc, HTTPException)
    headers = dict(exc.headers or {})
    if not request.url.path.startswith(PREFIX + "/") and request.url.path != PREFIX:
        return PlainTextResponse(exc.detail, exc.status_code, headers)
    error: RestError
    if exc.status_code == 404:
        error = NotFound("NotFound", f"There is no {request.url.path} in the REST API.")
    else:
        error = RestError(
            "MethodNotAllowed" if exc.status_code == 405 else "BadRequest", str(exc.detail)
        )
    response = error_response(error)
    response.status_code = exc.status_code
    response.headers.update(headers)
    return response
