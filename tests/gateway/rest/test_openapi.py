"""The OpenAPI document: valid OpenAPI 3.1 and complete (errors, security, every route);
the /docs page renders it without anything from the internet. That the gateway, `tidemq
openapi` and sdk/openapi.json have the same bytes: tests/tidemq/test_api_documents.py."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from openapi_spec_validator import validate

from gateway.rest.openapi import document
from tests.conftest import RunningGateway

REPO = Path(__file__).parents[3]
ROUTES = {
    ("GET", "/v1/queues"),
    ("POST", "/v1/queues"),
    ("GET", "/v1/queues/{name}"),
    ("PATCH", "/v1/queues/{name}"),
    ("DELETE", "/v1/queues/{name}"),
    ("POST", "/v1/queues/{name}/purge"),
    ("GET", "/v1/queues/{name}/stats"),
    ("GET", "/v1/queues/{name}/tags"),
    ("PUT", "/v1/queues/{name}/tags"),
    ("DELETE", "/v1/queues/{name}/tags"),
    ("GET", "/v1/queues/{name}/dead-letter-sources"),
    ("GET", "/v1/queues/{name}/archive"),
    ("POST", "/v1/queues/{name}/messages"),
    ("POST", "/v1/queues/{name}/messages/batch"),
    ("POST", "/v1/queues/{name}/messages/receive"),
    ("POST", "/v1/queues/{name}/messages/delete"),
    ("POST", "/v1/queues/{name}/messages/visibility"),
    ("POST", "/v1/queues/{name}/move-tasks"),
    ("GET", "/v1/queues/{name}/move-tasks"),
    ("POST", "/v1/move-tasks/{handle}/cancel"),
    ("GET", "/v1/topics"),
    ("POST", "/v1/topics"),
    ("GET", "/v1/topics/{name}"),
    ("PATCH", "/v1/topics/{name}"),
    ("DELETE", "/v1/topics/{name}"),
    ("POST", "/v1/topics/{name}/messages"),
    ("POST", "/v1/topics/{name}/messages/batch"),
    ("POST", "/v1/topics/{name}/subscriptions"),
    ("GET", "/v1/topics/{name}/subscriptions"),
    ("GET", "/v1/subscriptions/{id}"),
    ("PATCH", "/v1/subscriptions/{id}"),
    ("DELETE", "/v1/subscriptions/{id}"),
    ("POST", "/v1/subscriptions/{id}/receive"),
    ("POST", "/v1/subscriptions/{id}/delete"),
    ("POST", "/v1/subscriptions/{id}/visibility"),
    ("POST", "/v1/subscriptions/{id}/seek"),
}


def test_the_document_is_valid_openapi_3_1_with_every_route() -> None:
    spec = document()
    validate(spec)
    assert spec["openapi"] == "3.1.0"
    routes = {(m.upper(), path) for path, item in spec["paths"].items() for m in item}
    assert routes == ROUTES


def test_every_operation_declares_its_errors_and_credentials() -> None:
    spec = document()
    assert set(spec["components"]["securitySchemes"]) == {"bearer", "sigv4"}
    assert spec["security"] == [{"bearer": []}, {"sigv4": []}]
    error = {"$ref": "#/components/schemas/ErrorResponse"}
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            statuses = set(operation["responses"])
            assert {"400", "401"} <= statuses, (method, path)
            if "{" in path:
                assert "404" in statuses, (method, path)
            for status, response in operation["responses"].items():
                if status.startswith(("4", "5")):
                    assert response["content"]["application/json"]["schema"] == error
            assert operation["summary"]
            assert operation["operationId"]


def test_the_docs_page_lists_every_operation_and_fetches_nothing(
    gateway: RunningGateway,
) -> None:
    response = httpx.get(f"{gateway.url}/docs")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    page = response.text
    for method, path in ROUTES:
        assert f'{method}</span> <span class="path">{path}</span>' in page
    assert "ErrorResponse" in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "<script" not in page
