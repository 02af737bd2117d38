"""The API documents, OpenAPI for REST and AsyncAPI for the WebSocket API: the gateway
serves, `tidemq openapi` / `tidemq asyncapi` write, and sdk/ holds the same bytes. What
each document says is tested beside its API (tests/gateway/rest/test_openapi.py,
tests/gateway/ws/test_asyncapi.py)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from gateway.rest import openapi
from gateway.ws import asyncapi
from tests.conftest import RunningGateway

REPO = Path(__file__).parents[2]
DOCUMENTS = pytest.mark.parametrize(
    ("name", "document_bytes"),
    [("openapi", openapi.document_bytes), ("asyncapi", asyncapi.document_bytes)],
)


@DOCUMENTS
def test_the_gateway_serves_it_without_credentials(
    gateway: RunningGateway, name: str, document_bytes: Callable[[], bytes]
) -> None:
    response = httpx.get(f"{gateway.url}/{name}.json")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.content == document_bytes()


@DOCUMENTS
def test_the_committed_document_is_up_to_date(
    name: str, document_bytes: Callable[[], bytes]
) -> None:
    committed = (REPO / "sdk" / f"{name}.json").read_bytes()
    assert committed == document_bytes(), f"run `tidemq {name}` to regenerate sdk/{name}.json"


@DOCUMENTS
def test_the_command_writes_it(
    tmp_path: Path, name: str, document_bytes: Callable[[], bytes]
) -> None:
    output = tmp_path / "out" / f"{name}.json"
    result = subprocess.run(
        [sys.executable, "-m", "tidemq.cli", name, "--output", str(output)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert output.read_bytes() == document_bytes()
