"""The WebSocket API's AsyncAPI document: valid AsyncAPI 3.0 (checked against the
specification's own JSON Schema, asyncapi-3.0.0.schema.json), complete (every client and
server frame, every answer), served at /asyncapi.json, and the same as sdk/asyncapi.json
and what `tidemq asyncapi` writes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import jsonschema

from gateway.ws.asyncapi import document, document_bytes
from gateway.ws.frames import CLIENT_FRAMES, SERVER_FRAMES
from tests.conftest import RunningGateway

HERE = Path(__file__).parent
REPO = HERE.parents[2]


def test_the_document_is_valid_asyncapi_3() -> None:
    schema = json.loads((HERE / "asyncapi-3.0.0.schema.json").read_text())
    jsonschema.validate(document(), schema)
    broken = {**document(), "operations": {"x": {"action": "listen"}}}
    assert not jsonschema.Draft7Validator(schema).is_valid(broken)


def test_every_frame_and_answer_is_documented() -> None:
    spec = document()
    messages = spec["channels"]["connection"]["messages"]
    tags = [str(f.__struct_config__.tag) for f in CLIENT_FRAMES + SERVER_FRAMES]
    assert sorted(messages) == sorted(tags)
    for frame in CLIENT_FRAMES:
        op = str(frame.__struct_config__.tag)
        operation = spec["operations"][op]
        assert operation["action"] == "receive"
        replies = [ref["$ref"].rsplit("/", 1)[1] for ref in operation["reply"]["messages"]]
        assert "error" in replies
        assert len(replies) == 2
    sent = {op["messages"][0]["$ref"].rsplit("/", 1)[1] for op in spec["operations"].values()}
    assert {"deliver", "unsubscribed", "error"} <= sent


def test_the_gateway_serves_it_without_credentials(gateway: RunningGateway) -> None:
    response = httpx.get(f"{gateway.url}/asyncapi.json")
    assert response.status_code == 200
    assert response.content == document_bytes()


def test_sdk_asyncapi_json_is_up_to_date() -> None:
    committed = (REPO / "sdk" / "asyncapi.json").read_bytes()
    assert committed == document_bytes(), "run `tidemq asyncapi` to regenerate sdk/asyncapi.json"


def test_tidemq_asyncapi_writes_the_document(tmp_path: Path) -> None:
    output = tmp_path / "out" / "asyncapi.json"
    result = subprocess.run(
        [sys.executable, "-m", "tidemq.cli", "asyncapi", "--output", str(output)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert output.read_bytes() == document_bytes()
