"""docs/api.md matches the code: every route it names is in the OpenAPI document (and the
other way round), and its curl examples, run in order, work as printed."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import httpx
import orjson

from gateway.rest.openapi import document
from tests.conftest import RunningGateway
from tests.gateway.rest.conftest import MakeToken

API_MD = Path(__file__).parents[3] / "docs" / "api.md"
_ROUTE_ROW = re.compile(r"^\| ([A-Z, ]+) \| `(/v1/[^`]+)` \|", re.MULTILINE)


def _documented_routes() -> set[tuple[str, str]]:
    return {
        (method.strip(), path)
        for methods, path in _ROUTE_ROW.findall(API_MD.read_text())
        for method in methods.split(",")
    }


def _curl_commands() -> list[list[str]]:
    blocks = re.findall(r"```sh\n(.*?)```", API_MD.read_text(), re.DOTALL)
    text = "\n".join(blocks).replace("\\\n", " ")
    return [
        shlex.split(line, comments=True) for line in text.splitlines() if line.startswith("curl")
    ]


def _request(args: list[str]) -> tuple[str, str, bytes | None]:
    method, url, data = "GET", "", None
    i = 1
    while i < len(args):
        if args[i] == "-X":
            method, i = args[i + 1], i + 1
        elif args[i] == "-d":
            data, i = args[i + 1].encode(), i + 1
        elif args[i] == "-H":
            i += 1
        elif args[i].startswith("$TIDEMQ"):
            url = args[i].removeprefix("$TIDEMQ")
        i += 1
    if data is not None and method == "GET":
        method = "POST"
    return method, url, data


def _template(path: str) -> str:
    """The document's path for a concrete one: /v1/queues/orders -> /v1/queues/{name}."""
    path = path.split("?", 1)[0]
    path = re.sub(r"^/v1/queues/[^/]+", "/v1/queues/{name}", path)
    return re.sub(r"^/v1/move-tasks/[^/]+", "/v1/move-tasks/{handle}", path)


def test_the_route_table_is_the_document_s() -> None:
    documented = {
        (method.upper(), path) for path, item in document()["paths"].items() for method in item
    }
    assert _documented_routes() == documented


def test_every_curl_example_names_a_documented_route() -> None:
    paths = document()["paths"]
    commands = _curl_commands()
    assert len(commands) > 20
    for command in commands:
        method, url, _ = _request(command)
        assert method.lower() in paths[_template(url)], command


def test_the_curl_examples_run_as_printed(gateway: RunningGateway, make_token: MakeToken) -> None:
    headers = {"Authorization": f"Bearer {make_token()}"}
    with httpx.Client(base_url=gateway.url, headers=headers, timeout=30) as client:
        # The move task examples redrive orders-dlq, which must be some queue's.
        dlq = client.post("/v1/queues", json={"name": "orders-dlq"}).json()
        policy = orjson.dumps({"deadLetterTargetArn": dlq["arn"], "maxReceiveCount": 3})
        client.post(
            "/v1/queues", json={"name": "returns", "attributes": {"RedrivePolicy": policy.decode()}}
        )
        ran, receipt = 0, ""
        for command in _curl_commands():
            method, url, data = _request(command)
            if data is not None:
                data = data.replace(b"<receipt handle>", receipt.encode())
            if "<" in url:
                continue  # a task handle: the doc's task has finished by then
            response = client.request(method, url, content=data)
            assert response.status_code < 300, (command, response.text)
            if url.endswith("/receive"):
                receipt = response.json()["messages"][0]["receipt_handle"]
            ran += 1
    assert ran == len(_curl_commands()) - 1
