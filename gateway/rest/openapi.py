"""The OpenAPI 3.1 document of the REST API, generated from the route table.

Schemas come from the request and response Structs (msgspec's JSON Schema generation,
one component per Struct); paths, parameters, status codes and descriptions from the
`Operation`s and their handlers' docstrings. Every operation lists the error schema
under each error status it can answer with, and the two ways to authenticate. The
document is built once per process and served as it is; `tidemq openapi` writes the same
bytes to sdk/openapi.json.
"""

from __future__ import annotations

import functools
import inspect
import json
from typing import Any

import msgspec

from gateway.native import API_VERSION
from gateway.native.common import ErrorResponse, QueueName, SubscriptionId, TopicName
from gateway.rest import (  # noqa: F401  (they register)
    archive,
    messages,
    queues,
    subscriptions,
    tasks,
    topics,
)
from gateway.rest.operations import OPERATIONS, Operation
from gateway.rest.shapes.tasks import TaskHandle

_TAGS = ("queues", "messages", "move-tasks", "archive", "topics", "subscriptions")
_REF = "#/components/schemas/{name}"
_ERROR_REF = {"$ref": _REF.format(name="ErrorResponse")}
# By the path's first segment under /v1 and the parameter's name.
_PATH_PARAMETER_TYPES: dict[tuple[str, str], Any] = {
    ("queues", "name"): QueueName,
    ("move-tasks", "handle"): TaskHandle,
    ("topics", "name"): TopicName,
    ("subscriptions", "id"): SubscriptionId,
}
_STATUS_TEXT = {
    200: "OK",
    201: "Created",
    204: "Done; no content",
    400: "Bad input: nothing was changed",
    401: "Missing, invalid, expired or revoked credentials",
    403: "A quota is reached",
    404: "No such queue, task, topic or subscription in the caller's account",
    409: "Conflicts with the queue's or the task's state",
    413: "The request, a message or a batch is too large",
    503: "The control plane is unavailable",
}
_DESCRIPTION = """\
The native REST API of TideMQ: queues, messages, message move tasks, topics and their
subscriptions (pull subscriptions received from like queues, and sought), JSON in and out.

Every request carries credentials: `Authorization: Bearer <token>` (make one with
`tidemq keys token`), or an AWS Signature V4 by an access key (service `sqs`), as on the
SQS API. The credentials' account is the account the request acts in; another account's
queues and topics are answered as if they did not exist.

Errors are `{"error": {"code": "...", "message": "..."}}`, with the SQS API's error codes
(the SNS API's, for topics and subscriptions) where it has one. A request refused with a
4xx changed nothing. Times are milliseconds since the Unix epoch; durations say their
unit in their name.
"""


@functools.cache
def document() -> dict[str, Any]:
    shapes = _shapes()
    _, components = msgspec.json.schema_components(shapes, ref_template=_REF)
    for schema in components.values():
        if "description" in schema:  # a Struct's docstring, as written
            schema["description"] = inspect.cleandoc(schema["description"])
    paths: dict[str, dict[str, Any]] = {}
    for op in sorted(OPERATIONS, key=lambda op: _TAGS.index(op.tag)):
        paths.setdefault(op.path, {})[op.method.lower()] = _operation(op, components)
    for op in OPERATIONS:
        if op.query is not None:
            components.pop(op.query.__name__, None)  # inlined as parameters
    return {
        "openapi": "3.1.0",
        "info": {"title": "TideMQ REST API", "version": API_VERSION, "description": _DESCRIPTION},
        "tags": [{"name": tag} for tag in _TAGS],
        "paths": paths,
        "components": {
            "schemas": dict(sorted(components.items())),
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A token from `tidemq keys token`.",
                },
                "sigv4": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "Authorization",
                    "description": "AWS Signature Version 4 (`AWS4-HMAC-SHA256 "
                    "Credential=...`, service `sqs`, any region) by a registered access key, "
                    "with `X-Amz-Date`; the body is covered by the signature.",
                },
            },
        },
        "security": [{"bearer": []}, {"sigv4": []}],
    }


def document_bytes() -> bytes:
    """The document as served and as `tidemq openapi` writes it."""
    return (json.dumps(document(), indent=2, ensure_ascii=False) + "\n").encode()


def _shapes() -> list[Any]:
    shapes: list[Any] = [ErrorResponse]
    for op in OPERATIONS:
        for shape in (op.body, op.query, op.response):
            if shape is not None and shape not in shapes:
                shapes.append(shape)
    return shapes


def _operation(op: Operation, components: dict[str, Any]) -> dict[str, Any]:
    _, _, details = op.description.partition("\n")
    out: dict[str, Any] = {
        "operationId": op.operation_id,
        "summary": op.summary,
        "tags": [op.tag],
    }
    if details.strip():
        out["description"] = details.strip()
    parameters = [_path_parameter(op.path, name) for name in op.path_params]
    if op.query is not None:
        parameters += _query_parameters(components[op.query.__name__])
    if parameters:
        out["parameters"] = parameters
    if op.body is not None:
        out["requestBody"] = {
            "required": op.body_required,
            "content": {
                "application/json": {"schema": {"$ref": _REF.format(name=op.body.__name__)}}
            },
        }
    out["responses"] = {str(status): _response(op, status) for status in op.statuses}
    return out


def _path_parameter(path: str, name: str) -> dict[str, Any]:
    segment = path.removeprefix("/v1/").split("/", 1)[0]
    schema = msgspec.json.schema(_PATH_PARAMETER_TYPES[(segment, name)])
    parameter = {"name": name, "in": "path", "required": True, "schema": schema}
    if "description" in schema:
        parameter["description"] = schema.pop("description")
    examples = schema.pop("examples", None)
    if examples:
        parameter["example"] = examples[0]
    return parameter


def _query_parameters(schema: dict[str, Any]) -> list[dict[str, Any]]:
    required = set(schema.get("required", []))
    parameters = []
    for name, declared in schema["properties"].items():
        prop = dict(declared)
        parameter: dict[str, Any] = {"name": name, "in": "query", "required": name in required}
        # An absent parameter takes its default; `null` is not a value a query string has.
        variants = prop.pop("anyOf", None)
        if variants is not None:
            prop.update(next(v for v in variants if v.get("type") != "null"))
            if prop.get("default", 0) is None:
                prop.pop("default")
        if "description" in prop:
            parameter["description"] = prop.pop("description")
        parameter["schema"] = prop
        parameters.append(parameter)
    return parameters


def _response(op: Operation, status: int) -> dict[str, Any]:
    response: dict[str, Any] = {"description": _STATUS_TEXT[status]}
    if status == op.status:
        if op.response is not None:
            response["content"] = {"application/json": {"schema": _ref(op.response)}}
    else:
        response["content"] = {"application/json": {"schema": _ERROR_REF}}
    return response


def _ref(shape: type) -> dict[str, str]:
    return {"$ref": _REF.format(name=shape.__name__)}
