"""The SQS Query protocol of older SDKs: form-encoded requests, XML responses.

`Action=SendMessage&QueueUrl=...&MessageAttribute.1.Name=...` is turned into the same
parameters the JSON 1.0 protocol carries, and the action's result is written back as
SQS's XML. Both directions follow botocore's SQS model (the shapes are shared by the two
protocols), with the Query names the JSON model no longer records: a flattened list of
structures is named after its member shape (`SendMessageBatchRequestEntry.1.Id`), other
lists and maps by the table below (`AttributeName.1`, `Attribute.1.Name`/`.Value`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from xml.sax.saxutils import escape

from botocore.model import ListShape, MapShape, OperationModel, Shape, StructureShape

from gateway import aws_models
from gateway.core.text_rules import parse_int, without_forbidden_chars
from gateway.sqs.errors import SqsError, invalid_parameter, missing_parameter
from gateway.sqs.limits import MAX_INDEX

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


def _operation(action: str) -> OperationModel | None:
    return aws_models.operation("sqs", action)


def parse(action: str, pairs: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """The action's parameters, from the Query form's (name, value) pairs, as decoded by
    gateway/query_form.py (InvalidAction for an unknown action). Refused as SQS
    does: a map entry without its name or its value; and as TideMQ's limits do
    (gateway/sqs/limits.py): an entry numbered other than 1 to MAX_INDEX."""
    operation = _operation(action)
    if operation is None:
        raise SqsError("InvalidAction", f"The action {action} is not valid for this endpoint.")
    if operation.input_shape is None:
        return {}
    return _read_structure(operation.input_shape, _tree(pairs), "")


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
        f"<Type>{fault}</Type><Code>{_text(code)}</Code>"
        f"<Message>{_text(error.message)}</Message><Detail/></Error>"
        f"<RequestId>{request_id}</RequestId></ErrorResponse>"
    )


# -- form -> parameters -----------------------------------------------------------------
#
# One pass puts every parameter in a tree by the parts of its name
# (`MessageAttribute.1.Value.DataType` -> MessageAttribute / 1 / Value / DataType); one walk
# of the action's input shape then reads the tree, visiting each node once. Parameters
# the shape does not name are never looked at, as SQS ignores them (Version, Signature).


class _Node:
    __slots__ = ("children", "value")

    def __init__(self) -> None:
        self.value: str | None = None
        self.children: dict[str, _Node] = {}


# The deepest parameter has 7 parts (SendMessageBatchRequestEntry.1.MessageAttribute.1.
# Value.StringListValue.1); a longer name keeps its rest in its last part, which no
# shape names.
_MAX_PARTS = 8
# Maps whose entries are message attributes: an entry without a name gets SQS's words.
_MESSAGE_ATTRIBUTE_MAPS = frozenset({"MessageAttributes", "MessageSystemAttributes"})


def _tree(pairs: Iterable[tuple[str, str]]) -> _Node:
    root = _Node()
    for name, value in pairs:
        node = root
        for part in name.split(".", _MAX_PARTS - 1):
            child = node.children.get(part)
            if child is None:
                child = node.children[part] = _Node()
            node = child
        node.value = value  # a repeated parameter: the last one counts
    return root


def _read_structure(shape: StructureShape, node: _Node, prefix: str) -> dict[str, Any]:
    params = {}
    for name, member in shape.members.items():
        query_name = _entry_name(name, member)
        child = node.children.get(query_name)
        if child is not None:
            value = _read(member, name, child, f"{prefix}{query_name}")
            if value is not None:
                params[name] = value
    return params


def _read(shape: Shape, name: str, node: _Node, key: str) -> Any:
    if isinstance(shape, ListShape) and node.value == "" and not node.children:
        return []  # an empty list, as botocore's Query serializer writes one: `TagKey=`
    if isinstance(shape, StructureShape | ListShape | MapShape) and node.value is not None:
        raise SqsError(
            "InvalidQueryParameter",
            f"The parameter {key} takes no value of its own: give {key}.<member> or "
            f"{key}.1, {key}.2, ...",
        )
    if isinstance(shape, StructureShape):
        return _read_structure(shape, node, key + ".") or None
    if isinstance(shape, ListShape):
        items = []
        for index, child in _entries(node, key):
            item = _read(shape.member, name, child, f"{key}.{index}")
            if item is not None:
                items.append(item)
        return items or None
    if isinstance(shape, MapShape):
        return _read_map(shape, name, node, key) or None
    return _scalar(shape, node.value)


def _read_map(shape: MapShape, name: str, node: _Node, key: str) -> dict[str, Any]:
    key_name = "Key" if name in _KEYED_MAPS else "Name"
    entries = {}
    for index, child in _entries(node, key):
        name_node, value_node = child.children.get(key_name), child.children.get("Value")
        entry_key = None if name_node is None else name_node.value
        value_key = f"{key}.{index}.Value"
        value = None if value_node is None else _read(shape.value, name, value_node, value_key)
        if entry_key is None and value is None:
            continue  # only parameters no shape names, ignored as such
        if entry_key is None and name in _MESSAGE_ATTRIBUTE_MAPS:
            raise invalid_parameter("The request must contain non-empty message attribute name.")
        if entry_key is None:
            raise missing_parameter(f"{key}.{index}.{key_name}")
        if value is None:
            raise missing_parameter(value_key)
        entries[entry_key] = value
    return entries


def _entries(node: _Node, key: str) -> list[tuple[int, _Node]]:
    """The numbered entries under `key` (1 to MAX_INDEX, in ASCII digits and without
    sign or leading zeros, so that no two spellings name one entry), in order."""
    entries = []
    for part, child in node.children.items():
        index = parse_int(part)
        if index is None or str(index) != part or not 1 <= index <= MAX_INDEX:
            raise SqsError(
                "InvalidQueryParameter",
                f"The parameter {key}.{part} is invalid: entries are numbered 1 to "
                f"{MAX_INDEX}, in ASCII digits.",
            )
        entries.append((index, child))
    entries.sort(key=lambda entry: entry[0])
    return entries


def _scalar(shape: Shape, text: str | None) -> Any:
    if text is None or shape.type_name not in ("integer", "long", "boolean"):
        return text
    if shape.type_name == "boolean":
        return text.lower() == "true"
    # A malformed number is passed on as text: the action refuses it with SQS's message.
    number = parse_int(text)
    return text if number is None else number


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
                _element(key_name, _text(k)) + _element("Value", _inner(shape.value, v)),
            )
            for k, v in value.items()
        )
    return _element(tag, _inner(shape, value))


def _inner(shape: Shape, value: Any) -> str:
    if isinstance(shape, StructureShape):
        return _write_members(shape, value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return _text(str(value))


def _text(value: str) -> str:
    """Text as XML character data. Validation keeps forbidden characters out of what is
    stored, but not out of what was stored before it did, nor out of error messages that
    quote a refused value: replaced here, so that no response is ever unreadable."""
    return escape(without_forbidden_chars(value), _CARRIAGE_RETURN)


def _element(tag: str, inner: str) -> str:
    return f"<{tag}>{inner}</{tag}>"
