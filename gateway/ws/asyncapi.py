"""The AsyncAPI 3.0 document of the WebSocket API, generated from its frames.

One channel, the connection at /v1/ws; one message per client frame (`op`) and per
server frame (`type`), each with its Struct's JSON Schema (msgspec's generation, as the
OpenAPI document's); one operation per client frame, with the server's answers as its
reply, and one per frame the server sends unasked. Operations are the server's point of
view: it *receives* the client's frames and *sends* its own. Served at /asyncapi.json;
`tidemq asyncapi` writes the same bytes to sdk/asyncapi.json.
"""

from __future__ import annotations

import functools
import inspect
import json
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from gateway.native import API_VERSION
from gateway.ws.endpoint import PATH
from gateway.ws.frames import CLIENT_FRAMES, SERVER_FRAMES

_REF = "#/components/schemas/{name}"
_CHANNEL = "connection"
# Each client frame's answers, besides `error`.
_REPLIES = {
    "subscribe": "subscribed",
    "credit": "credit_set",
    "unsubscribe": "unsubscribed",
    "ack": "settled",
    "nack": "settled",
    "extend": "settled",
    "seek": "cursor_set",
    "publish": "published",
}
# The frames the server sends without being asked.
_UNASKED = ("deliver", "unsubscribed", "error")
_DESCRIPTION = f"""\
The WebSocket API of TideMQ: subscribe to queues, or to pull subscriptions of topics, and
have their messages pushed within a credit (like AMQP's prefetch); ack, nack or extend
them; seek a pull subscription (replay); publish to queues and topics.

Connect to `{PATH}` with a bearer token (`tidemq keys token`): an `Authorization: Bearer
<token>` header, or an `access_token` query parameter where headers cannot be set. A
missing, unknown, revoked or expired token is refused with a 401 before the upgrade.

Every frame is one JSON object in a text frame. Client frames name their operation in
`op` and may carry an `id`, which the answer repeats; server frames name their kind in
`type`. Frames are carried out in the order they arrive. Message and error shapes are the
REST API's; error codes are the SQS API's (the SNS API's for topics) where it has one.
Closing the connection makes its unsettled messages visible again at once.
"""


@functools.cache
def document() -> dict[str, Any]:
    _, schemas = msgspec.json.schema_components(CLIENT_FRAMES + SERVER_FRAMES, ref_template=_REF)
    for schema in schemas.values():
        # A frame's docstring, dedented as msgspec 0.23 does and older releases did not,
        # so that the document is the same whichever one generates it.
        if "description" in schema:
            schema["description"] = inspect.cleandoc(schema["description"])
    messages: dict[str, Any] = {}
    for frame in CLIENT_FRAMES + SERVER_FRAMES:
        name = _name(frame)
        doc = inspect.getdoc(frame) or ""
        messages[name] = {
            "name": name,
            "title": frame.__name__,
            "summary": doc.split("\n\n", 1)[0].replace("\n", " "),
            "contentType": "application/json",
            "payload": {"$ref": _REF.format(name=frame.__name__)},
        }
    operations: dict[str, Any] = {}
    for frame in CLIENT_FRAMES:
        op = _name(frame)
        operations[op] = {
            "action": "receive",
            "channel": _channel_ref(),
            "summary": messages[op]["summary"],
            "messages": [_message_ref(op)],
            "reply": {
                "channel": _channel_ref(),
                "messages": [_message_ref(_REPLIES[op]), _message_ref("error")],
            },
        }
    for name in _UNASKED:
        operations[f"send_{name}"] = {
            "action": "send",
            "channel": _channel_ref(),
            "summary": messages[name]["summary"],
            "messages": [_message_ref(name)],
        }
    security = [
        {"$ref": "#/components/securitySchemes/bearer"},
        {"$ref": "#/components/securitySchemes/accessToken"},
    ]
    return {
        "asyncapi": "3.0.0",
        "info": {"title": "TideMQ WebSocket API", "version": API_VERSION},
        "defaultContentType": "application/json",
        "servers": {
            "local": {
                "host": "127.0.0.1:9324",
                "protocol": "ws",
                "description": "`tidemq up` on this machine.",
                "security": security,
            }
        },
        "channels": {
            _CHANNEL: {
                "address": PATH,
                "title": "A WebSocket connection",
                "description": _DESCRIPTION,
                "messages": {name: {"$ref": f"#/components/messages/{name}"} for name in messages},
            }
        },
        "operations": operations,
        "components": {
            "schemas": schemas,
            "messages": messages,
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "`Authorization: Bearer <token>` on the upgrade request.",
                },
                "accessToken": {
                    "type": "httpApiKey",
                    "name": "access_token",
                    "in": "query",
                    "description": "The token as a query parameter, for browsers.",
                },
            },
        },
    }


@functools.cache
def document_bytes() -> bytes:
    return (json.dumps(document(), indent=2, ensure_ascii=False) + "\n").encode()


async def asyncapi_json(request: Request) -> Response:
    return Response(document_bytes(), media_type="application/json")


def _name(frame: type[msgspec.Struct]) -> str:
    return str(frame.__struct_config__.tag)


def _channel_ref() -> dict[str, str]:
    return {"$ref": f"#/channels/{_CHANNEL}"}


def _message_ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/channels/{_CHANNEL}/messages/{name}"}
