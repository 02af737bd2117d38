"""The SQS Query protocol of older SDKs: form-encoded requests, XML responses.

`Action=SendMessage&QueueUrl=...&MessageAttribute.1.Name=...` is turned into the same
parameters the JSON 1.0 protocol carries, and the action's result is written back as
SQS's XML. Both directions follow botocore's SQS model (the shapes are shared by the two
protocols), with the Query names the JSON model no longer records: a flattened list of
structures is named after its member shape (`SendMessageBatchRequestEntry.1.Id`), other
lists and maps by the table below (`AttributeName.1`, `Attribute.1.Name`/`.Value`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any
from xml.sax.saxutils import escape

import botocore.session
from botocore.model import ListShape, MapShape, OperationModel, Shape, StructureShape

from gateway.sqs.errors import SqsError

XML_NAMESPACE = "http://queue.amazonaws.com/doc/2012-11-05/"
CONTENT_TYPE = "text/xml"

# Member name -> the Query name of its entries (lists and maps that are not lists of
# structures, which take their member shape's name).
_ENTRY_NAMES = {
    "Attributes": "Attribute",
    "tags": "Tag",
    "Tags": "Tag",
    "MessageAttributes": "MessageAttribute",
    "MessageSystemAttributes": "MessageSystemAttribute",
    "AttributeNames": "AttributeName",
    "MessageAttributeNames": "MessageAttributeName",
    "MessageSystemAttributeNames": "MessageSystemAttributeName",
    "TagKeys": "TagKey",
    "AWSAccountIds": "AWSAccountId",
    "Actions": "ActionName",
    "StringListValues": "StringListValue",
    "BinaryListValues": "BinaryListValue",
    "QueueUrls": "QueueUrl",
    "queueUrls": "QueueUrl",
}
# XML parsers turn a raw CR (and CR LF) into LF; as a character reference it survives.
_CARRIAGE_RETURN = {"\r": "&#13;"}
# Maps whose entries name their key "Key" rather than "Name".
_KEYED_MAPS = frozenset({"tags", "Tags"})


@cache
def _operation(action: str) -> OperationModel | None:
    model = botocore.session.get_session().get_service_model("sqs")
    return model.operation_model(action) if action in model.operation_names else None


def parse(action: str, form: Mapping[str, str]) -> dict[str, Any]:
    """The action's parameters, from the Query form (InvalidAction for an unknown one)."""
    operation = _operation(action)
    if operation is None:
        raise SqsError("InvalidAction", f"The action {action} is not valid for this endpoint.")
    if operation.input_shape is None:
        return {}
    return _read_structure(operation.input_shape, form, "")


def render(action: str, result: Mapping[str, Any], request_id: str) -> str:
    """The XML response of an action's result."""
    operation = _operation(action)
    assert operation is not None, "only parsed actions are rendered"
    body = ""
    if operation.output_shape is not None:
        inner = _write_members(operation.output_shape, result)
        body = f"<{action}Result>{inner}</{action}Result>"
    return (
        f'<?xml version="1.0"?><{action}Response xmlns="{XML_NAMESPACE}">{body}'
        f"<ResponseMetadata><RequestId>{request_id}</RequestId></ResponseMetadata>"
        f"</{action}Response>"
    )


def render_error(error: SqsError, request_id: str) -> str:
    code, _, fault = error.query_error.partition(";")
    return (
        f'<?xml version="1.0"?><ErrorResponse xmlns="{XML_NAMESPACE}"><Error>'
        f"<Type>{fault}</Type><Code>{escape(code)}</Code>"
        f"<Message>{escape(error.message)}</Message><Detail/></Error>"
        f"<RequestId>{request_id}</RequestId></ErrorResponse>"
    )


# -- form -> parameters -----------------------------------------------------------------


def _read_structure(shape: StructureShape, form: Mapping[str, str], prefix: str) -> dict[str, Any]:
    params = {}
    for name, member in shape.members.items():
        value = _read(member, name, form, f"{prefix}{_entry_name(name, member)}")
        if value is not None:
            params[name] = value
    return params


def _read(shape: Shape, name: str, form: Mapping[str, str], key: str) -> Any:
    if isinstance(shape, StructureShape):
        return _read_structure(shape, form, key + ".") or None
    if isinstance(shape, ListShape):
        items = []
        for i in _indexes(form, key):
            item = _read(shape.member, name, form, f"{key}.{i}")
            if item is not None:
                items.append(item)
        return items or None
    if isinstance(shape, MapShape):
        key_name = "Key" if name in _KEYED_MAPS else "Name"
        entries = {}
        for i in _indexes(form, key):
            entry_key = form.get(f"{key}.{i}.{key_name}")
            value = _read(shape.value, name, form, f"{key}.{i}.Value")
            if entry_key is not None and value is not None:
                entries[entry_key] = value
        return entries or None
    text = form.get(key)
    if text is None or shape.type_name not in ("integer", "long", "boolean"):
        return text
    if shape.type_name == "boolean":
        return text.lower() == "true"
    # A malformed number is passed on as text: the action refuses it with SQS's message.
    return int(text) if text.lstrip("-").isdigit() else text


def _indexes(form: Mapping[str, str], key: str) -> list[int]:
    """The entry numbers used under `key` (1, 2, ...), in order."""
    numbers = set()
    for name in form:
        if name.startswith(key + "."):
            head = name[len(key) + 1 :].split(".", 1)[0]
            if head.isdigit():
                numbers.add(int(head))
    return sorted(numbers)


def _entry_name(name: str, shape: Shape) -> str:
    if isinstance(shape, ListShape) and isinstance(shape.member, StructureShape):
        return str(shape.member.name)
    return _ENTRY_NAMES.get(name, name)


# -- result -> XML ----------------------------------------------------------------------


def _write_members(shape: StructureShape, values: Mapping[str, Any]) -> str:
    parts = []
    for name, member in shape.members.items():
        if name in values and values[name] is not None:
            parts.append(_write(member, name, values[name]))
    return "".join(parts)


def _write(shape: Shape, name: str, value: Any) -> str:
    tag = _entry_name(name, shape)
    if isinstance(shape, ListShape):
        return "".join(_element(tag, _inner(shape.member, item)) for item in value)
    if isinstance(shape, MapShape):
        key_name = "Key" if name in _KEYED_MAPS else "Name"
        return "".join(
            _element(
                tag,
                _element(key_name, escape(k, _CARRIAGE_RETURN))
                + _element("Value", _inner(shape.value, v)),
            )
            for k, v in value.items()
        )
    return _element(tag, _inner(shape, value))


def _inner(shape: Shape, value: Any) -> str:
    if isinstance(shape, StructureShape):
        return _write_members(shape, value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return escape(str(value), _CARRIAGE_RETURN)


def _element(tag: str, inner: str) -> str:
    return f"<{tag}>{inner}</{tag}>"
