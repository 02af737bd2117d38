"""The SNS Query protocol: form-encoded requests in, XML out, both read off botocore's
SNS model, by the rules of botocore's own query serializer and parser.

A request's form (decoded by gateway/query_form.py) names a structure's members by
their names (`TopicArn=...`, or a member's locationName where the model gives one), a
list's entries `<Name>.member.<N>` (`Tags.member.1.Key`), a map's entries
`<Name>.entry.<N>.key` and `.value`, or the key and value shapes' locationNames
(`MessageAttributes.entry.1.Name`, `MessageAttributes.entry.1.Value.DataType`). An empty
list is `<Name>=` alone. Booleans are `true` / `false`, integers decimal, blobs base64;
they reach an action as bool, int and bytes.

A response is `<{Action}Response xmlns="...">`, then `<{Action}Result>` with the result's
members in the model's order (only for actions with an output shape: DeleteTopic has
none), then `<ResponseMetadata><RequestId>`. Lists are `<member>` elements, maps `<entry>`
elements of `<key>` and `<value>`. An error is `<ErrorResponse>` with `<Error>` (Type,
Code, Message) and `<RequestId>`.

No shape of SNS's model is flattened, and its inputs and outputs use only the scalar
types handled here: tests/gateway/sns/test_query_protocol.py checks both on the model.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any
from xml.sax.saxutils import escape

from botocore.model import ListShape, MapShape, OperationModel, Shape, StructureShape

from gateway import aws_models
from gateway.core.text_rules import parse_int, without_forbidden_chars
from gateway.sns.errors import SnsError, invalid_parameter, missing_parameter
from gateway.sns.limits import MAX_INDEX

XML_NAMESPACE = "http://sns.amazonaws.com/doc/2010-03-31/"
CONTENT_TYPE = "text/xml"
# XML parsers turn a raw CR (and CR LF) into LF; as a character reference it survives.
_CARRIAGE_RETURN = {"\r": "&#13;"}


def _operation(action: str) -> OperationModel | None:
    return aws_models.operation("sns", action)


def parse(action: str, pairs: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """The action's parameters, by their names in the model, from the form's (name,
    value) pairs (a name given twice: the last value counts). Refused with SNS's errors:
    an unknown action (InvalidAction); a required member missing, a boolean, integer or
    blob that is none, a container given a value of its own (InvalidParameter); and by
    TideMQ's limits (gateway/sns/limits.py): an entry numbered other than 1 to MAX_INDEX.
    Parameters that no member names are ignored, as SNS ignores them (Version, ...)."""
    operation = _operation(action)
    if operation is None:
        raise invalid_action(action)
    if operation.input_shape is None:
        return {}
    return _read_structure(operation.input_shape, _tree(pairs), "")


def render(action: str, result: Mapping[str, Any], request_id: str) -> str:
    """The XML response of an action's result (its members by their names in the model;
    members that are None or that the model does not name are left out)."""
    operation = _operation(action)
    assert operation is not None, "only parsed actions are rendered"
    body = ""
    output = operation.output_shape
    if output is not None:
        wrapper = output.serialization.get("resultWrapper", f"{action}Result")
        body = _element(wrapper, _write_structure(output, result))
    return (
        f'<{action}Response xmlns="{XML_NAMESPACE}">{body}'
        f"<ResponseMetadata><RequestId>{_text(request_id)}</RequestId></ResponseMetadata>"
        f"</{action}Response>"
    )


def render_error(error: SnsError, request_id: str) -> str:
    return (
        f'<ErrorResponse xmlns="{XML_NAMESPACE}"><Error><Type>{error.fault}</Type>'
        f"<Code>{_text(error.code)}</Code><Message>{_text(error.message)}</Message></Error>"
        f"<RequestId>{_text(request_id)}</RequestId></ErrorResponse>"
    )


def invalid_action(action: str) -> SnsError:
    return SnsError("InvalidAction", f"The action {action} is not valid for this endpoint.")


# -- form -> parameters -----------------------------------------------------------------
#
# One pass puts every parameter in a tree by the parts of its name
# (`Tags.member.1.Key` -> Tags / member / 1 / Key); one walk of the action's input shape
# then reads the tree, visiting each node once.


class _Node:
    __slots__ = ("children", "value")

    def __init__(self) -> None:
        self.value: str | None = None
        self.children: dict[str, _Node] = {}


# The deepest parameter has 8 parts (PublishBatchRequestEntries.member.1.MessageAttributes.
# entry.1.Value.StringValue); a longer name keeps its rest in its last part, which no
# shape names.
_MAX_PARTS = 9


def _tree(pairs: Iterable[tuple[str, str]]) -> _Node:
    root = _Node()
    for name, value in pairs:
        node = root
        for part in name.split(".", _MAX_PARTS - 1):
            child = node.children.get(part)
            if child is None:
                child = node.children[part] = _Node()
            node = child
        node.value = value
    return root


def _read(shape: Shape, node: _Node, key: str) -> Any:
    if isinstance(shape, StructureShape):
        _no_value_of_its_own(node, key, "<member>")
        return _read_structure(shape, node, key + ".")
    if isinstance(shape, ListShape):
        return _read_list(shape, node, key)
    if isinstance(shape, MapShape):
        return _read_map(shape, node, key)
    if node.children:
        part = next(iter(node.children))
        raise invalid_parameter(f"{key}.{part} Reason: {key} is a single value, with no parts")
    if node.value is None:
        raise missing_parameter(key)
    return _scalar(shape, node.value, key)


def _read_structure(shape: StructureShape, node: _Node, prefix: str) -> dict[str, Any]:
    params = {}
    for name, member in shape.members.items():
        query_name = member.serialization.get("name", name)
        child = node.children.get(query_name)
        if child is not None:
            params[name] = _read(member, child, prefix + query_name)
    for name in shape.required_members:
        if name not in params:
            raise missing_parameter(prefix + shape.members[name].serialization.get("name", name))
    return params


def _read_list(shape: ListShape, node: _Node, key: str) -> list[Any]:
    entry = shape.member.serialization.get("name", "member")
    entries = _only_child(node, key, entry)
    if entries is None:
        return []  # `<Name>=`: the empty list
    _no_value_of_its_own(entries, f"{key}.{entry}", "<N>")
    return [
        _read(shape.member, child, f"{key}.{entry}.{index}")
        for index, child in _entries(entries, f"{key}.{entry}")
    ]


def _read_map(shape: MapShape, node: _Node, key: str) -> dict[Any, Any]:
    entries = _only_child(node, key, "entry")
    if entries is None:
        return {}
    _no_value_of_its_own(entries, f"{key}.entry", "<N>")
    key_name = shape.key.serialization.get("name", "key")
    value_name = shape.value.serialization.get("name", "value")
    parsed = {}
    for index, child in _entries(entries, f"{key}.entry"):
        prefix = f"{key}.entry.{index}."
        key_node, value_node = child.children.get(key_name), child.children.get(value_name)
        if key_node is None:
            raise missing_parameter(prefix + key_name)
        if value_node is None:
            raise missing_parameter(prefix + value_name)
        entry_key = _read(shape.key, key_node, prefix + key_name)
        parsed[entry_key] = _read(shape.value, value_node, prefix + value_name)
    return parsed


def _only_child(node: _Node, key: str, name: str) -> _Node | None:
    """The one child a list or map node may have (`member`, `entry`), if it has it."""
    _no_value_of_its_own(node, key, f"{name}.<N>")
    for part in node.children:
        if part != name:
            raise invalid_parameter(
                f"{key}.{part} Reason: the entries of {key} are {key}.{name}.1, {key}.{name}.2, ..."
            )
    return node.children.get(name)


def _no_value_of_its_own(node: _Node, key: str, parts: str) -> None:
    # "" is allowed: botocore writes an empty list as `<Name>=`.
    if node.value:
        raise invalid_parameter(f"{key} Reason: it takes no value of its own, only {key}.{parts}")


def _entries(node: _Node, key: str) -> list[tuple[int, _Node]]:
    """The numbered entries under `key` (1 to MAX_INDEX, in ASCII digits and without
    sign or leading zeros, so that no two spellings name one entry), in order."""
    entries = []
    for part, child in node.children.items():
        index = parse_int(part)
        if index is None or str(index) != part or not 1 <= index <= MAX_INDEX:
            raise invalid_parameter(
                f"{key}.{part} Reason: entries are numbered 1 to {MAX_INDEX}, in ASCII digits"
            )
        entries.append((index, child))
    entries.sort(key=lambda entry: entry[0])
    return entries


def _scalar(shape: Shape, text: str, key: str) -> Any:
    kind = shape.type_name
    if kind == "boolean":
        if text.lower() not in ("true", "false"):
            raise invalid_parameter(f"{key} Reason: must be true or false")
        return text.lower() == "true"
    if kind == "integer":
        number = parse_int(text)
        if number is None:
            raise invalid_parameter(f"{key} Reason: must be an integer")
        return number
    if kind == "blob":
        try:
            return base64.b64decode(text, validate=True)
        except binascii.Error:
            raise invalid_parameter(f"{key} Reason: must be base64") from None
    return text


# -- result -> XML ----------------------------------------------------------------------


def _write_structure(shape: StructureShape, values: Mapping[str, Any]) -> str:
    parts = []
    for name, member in shape.members.items():
        value = values.get(name)
        if value is not None:
            parts.append(_element(member.serialization.get("name", name), _write(member, value)))
    return "".join(parts)


def _write(shape: Shape, value: Any) -> str:
    """The inside of the element that holds `value`."""
    if isinstance(shape, StructureShape):
        return _write_structure(shape, value)
    if isinstance(shape, ListShape):
        entry = shape.member.serialization.get("name", "member")
        return "".join(_element(entry, _write(shape.member, item)) for item in value)
    if isinstance(shape, MapShape):
        key_name = shape.key.serialization.get("name", "key")
        value_name = shape.value.serialization.get("name", "value")
        return "".join(
            _element(
                "entry",
                _element(key_name, _write(shape.key, k))
                + _element(value_name, _write(shape.value, v)),
            )
            for k, v in value.items()
        )
    if shape.type_name == "boolean":
        return "true" if value else "false"
    if shape.type_name == "timestamp":
        return _iso8601(value)
    return _text(str(value))


def _iso8601(moment: datetime) -> str:
    # isoformat, unlike strftime, writes years before 1000 in four digits.
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def _text(value: str) -> str:
    """Text as XML character data. Characters XML cannot carry (which validation keeps
    out of what is stored, but an error message may quote) are replaced, so that no
    response is ever unreadable."""
    return escape(without_forbidden_chars(value), _CARRIAGE_RETURN)


def _element(tag: str, inner: str) -> str:
    return f"<{tag}>{inner}</{tag}>"
