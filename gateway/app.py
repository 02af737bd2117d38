"""The gateway's Starlette application.

The composition root (tidemq) supplies the lifespan that opens the broker and the
authenticators and stores them as `app.state.broker`, `app.state.authenticator` and
`app.state.token_verifier`; the gateway itself opens nothing, so tests and the embedded
launcher build it the same way. This is the one module that knows every protocol.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.routing import Route, WebSocketRoute

from gateway import metrics
from gateway.admission import AdmissionLimits, AdmissionMiddleware, FairScheduler
from gateway.aws_endpoint import aws_endpoint
from gateway.console.routes import console_routes
from gateway.health import healthz, readyz
from gateway.metrics_endpoint import PATH as METRICS_PATH
from gateway.metrics_endpoint import metrics_endpoint
from gateway.request_ids import RequestIds
from gateway.rest.routes import http_error, rest_routes
from gateway.sns.certificate import ROUTE_PATH as SIGNING_CERTIFICATE_PATH
from gateway.sns.certificate import signing_certificate
from gateway.sqs.endpoint import sqs_endpoint
from gateway.ws.asyncapi import asyncapi_json
from gateway.ws.endpoint import PATH as WEBSOCKET_PATH
from gateway.ws.endpoint import websocket_endpoint

Lifespan = Callable[[Starlette], AbstractAsyncContextManager[Any]]


# How often a WebSocket connection's bearer token is checked again after the upgrade.
DEFAULT_WS_TOKEN_RECHECK_S = 10.0


def create_app(
    lifespan: Lifespan,
    public_url: str | None = None,
    *,
    metrics_max_queues: int = metrics.DEFAULT_MAX_QUEUES,
    metrics_token: str | None = None,
    access_log: bool = False,
    admission: AdmissionLimits | None = None,
) -> Starlette:
    """`public_url`: base of queue URLs; when None they are built from the Host header.

    `metrics_max_queues`: the queues (and topics, and subscriptions) `/metrics` shows at
    most; `metrics_token`: the bearer token a scrape must carry, None for none;
    `access_log`: a log record per request (gateway/request_ids.py).

    `admission`: how many requests do work at once, in all and per caller, the others
    waiting their caller's turn (gateway/admission.py); the defaults when None.
    """
    scheduler = FairScheduler(admission or AdmissionLimits())
    app = Starlette(
        routes=[
            # SQS and SNS share the root, routed by the request's signature.
            Route("/", aws_endpoint, methods=["POST", "GET"]),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/readyz", readyz, methods=["GET"]),
            Route(METRICS_PATH, metrics_endpoint, methods=["GET"]),
            # SQS's Query protocol also posts to a queue's own URL: /<account id>/<queue>.
            Route("/{account_id:int}/{queue_name}", sqs_endpoint, methods=["POST", "GET"]),
            *rest_routes(),
            *console_routes(),
            WebSocketRoute(WEBSOCKET_PATH, websocket_endpoint),
            Route("/asyncapi.json", asyncapi_json, methods=["GET"]),
            # Unauthenticated: webhook receivers fetch it to check message signatures.
            Route(SIGNING_CERTIFICATE_PATH, signing_certificate, methods=["GET"]),
        ],
        # Inside the outermost error handler, so a failure while waiting is a 500 like
        # any other, and in front of the routes: a waiting request costs no routing. The
        # request id first, so that a request's wait is in its access record.
        middleware=[
            Middleware(RequestIds, log_access=access_log),
            Middleware(AdmissionMiddleware, scheduler=scheduler),
        ],
        exception_handlers={HTTPException: http_error},
        lifespan=lifespan,
    )
    app.state.admission = scheduler
    app.state.public_url = public_url.rstrip("/") if public_url else None
    app.state.ws_token_recheck_s = DEFAULT_WS_TOKEN_RECHECK_S
    app.state.metrics_max_queues = metrics_max_queues
    app.state.metrics_token = metrics_token
    metrics.set_max_queues(metrics_max_queues)
    return app
