"""The WebSocket API's AsyncAPI document: valid AsyncAPI 3.0 (checked against the
specification's own JSON Schema, asyncapi-3.0.0.schema.json) and complete (every client
and server frame, every answer). That the gateway, `tidemq asyncapi` and
sdk/asyncapi.json have the same bytes: tests/tidemq/test_api_documents.py."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from gateway.ws.asyncapi import document
from gateway.ws.frames import CLIENT_FRAMES, SERVER_FRAMES

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
