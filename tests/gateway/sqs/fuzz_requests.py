"""Hypothesis strategies for SQS requests, generated from botocore's model of the actions:
parameters of the right shapes with values chosen to break things (Unicode digits,
characters SQS forbids, wrong JSON types, out-of-range numbers), beside near-valid ones
(the names the gateway knows, a real queue's URL and receipts) that reach deep into it.

A request is drawn as a parameter dict; `json_body` and `query_pairs` write it in either
protocol, and `query_noise` adds to a Query form what no SDK would send (bad indexes and
escapes, names of no parameter, map entries without their name or value).

What exists only at run time (the queues' URLs, receipts) is drawn as a placeholder
(`{queue-url-0}`) and put in by `resolve`: hypothesis needs strategies that draw the same
way every time, whatever the gateway holds.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

import botocore.session
from botocore.model import ListShape, MapShape, Shape, StructureShape
from hypothesis import strategies as st

MODEL = botocore.session.get_session().get_service_model("sqs")
ACTIONS = sorted(MODEL.operation_names)

# Query names of lists and maps that are not lists of structures (SQS's, as in botocore's
# older Query model): `Attribute.1.Name`, `AttributeName.1`, `Tag.1.Key`.
QUERY_NAMES = {
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
}
QUEUE_URLS = ["{queue-url-0}", "{queue-url-1}"]
QUEUE_ARNS = ["{queue-arn-0}", "{queue-arn-1}"]
RECEIPTS = ["{receipt-0}", "{receipt-1}", "{receipt-2}"]
TRICKY_TEXT = [
    *("", " ", "All", ".*", "x.*", "true", "FALSE", "<a>&amp;]]>", "\r\n", "%FF", "&", "="),
    *("String", "Number", "Binary", "String.custom", "Number.int", "Binary.png"),
    *("\x00", "\x08", "\x1f", "\ufffe", "\uffff", "\ud7ff\ue000\U0010ffff", "caf\u00e9"),
    *("VisibilityTimeout", "MaximumMessageSize", "DelaySeconds", "Policy", "FifoQueue"),
    *("ReceiveMessageWaitTimeSeconds", "RedrivePolicy", "AWSTraceHeader", "AWS.x", "a..b"),
    *('{"Statement": []}', '{"maxReceiveCount": "\u00b2"}', "AAEC/w==", "not base64!"),
    *("fuzz", "fuzz.fifo", "bad name", "a" * 81, "123456789012", "SendMessage", "*"),
    *QUEUE_URLS,
    *QUEUE_ARNS,
    *RECEIPTS,
]
# Numbers as text: in queue attributes, message attributes, and every integer parameter
# of the Query protocol.
NUMBERS = [
    *("0", "1", "-1", "10", "11", "60", "1024", "43201", "9" * 20, "9" * 5000),
    *("\u00b2", "\u00b3", "\u2460", "\u2469", "\u0665", "\uff15", " 5", "5 ", "+5", "05"),
    *("1e3", "0x10", "1_0"),
    *("NaN", "Infinity", "-0.5E-3", ".5", "5.", "1e999999", "", "-"),
]
WRONG_JSON_TYPES = [None, True, 7, -1.5, "7", [], ["x"], {}, {"a": 1}]
# CreateQueue names: a few new ones (valid, so that creation and its attributes are
# tried, but few, so that the queues a fuzz run checks stay few) and invalid ones.
QUEUE_NAMES = ["fuzz-a", "fuzz-b.fifo", "fuzz", "fuzz.fifo", "bad name", "a" * 81, "", "\x00"]
INTEGER_ATTRIBUTES = [
    *("VisibilityTimeout", "MaximumMessageSize", "DelaySeconds", "MessageRetentionPeriod"),
    "ReceiveMessageWaitTimeSeconds",
]
# Member name -> the values it usually holds.
LIKELY = {
    "QueueUrl": QUEUE_URLS,
    "SourceArn": QUEUE_ARNS,
    "DestinationArn": QUEUE_ARNS,
    "ReceiptHandle": RECEIPTS,
    "Id": ["a", "b", "c", "1"],
    "MessageGroupId": ["g1", "g2"],
    "MessageDeduplicationId": ["d1", "d2"],
    "DataType": ["String", "Number", "Binary", "String.x", "Number.x"],
    # Values of queue attributes (mostly integers) and of message attributes.
    "QueueAttributeValue": NUMBERS,
    "StringValue": [*NUMBERS, "\x00", "a\x1fb", "\ufffe", "ok"],
}


def mostly(usual: st.SearchStrategy[Any], rare: st.SearchStrategy[Any], odds: int) -> Any:
    """`usual`, but one time in `odds` `rare` (hypothesis's `one_of` does not weigh)."""
    return st.integers(1, odds).flatmap(lambda n: rare if n == 1 else usual)


TEXT = st.one_of(st.sampled_from(TRICKY_TEXT), st.sampled_from(NUMBERS), st.text(max_size=12))


def params_for(shape: Shape, depth: int = 0, name: str = "") -> st.SearchStrategy[Any]:
    """Values for `shape` (member `name`); now and then one of a wrong JSON type."""
    right = _right_type(shape, depth, name)
    # Mostly right where a wrong value ends the request early (a queue not named).
    return mostly(right, st.sampled_from(WRONG_JSON_TYPES), 8 if name in LIKELY else 4)


def _right_type(shape: Shape, depth: int, name: str) -> st.SearchStrategy[Any]:
    if isinstance(shape, StructureShape):
        members = {n: params_for(m, depth + 1, n) for n, m in shape.members.items()}
        required = set(shape.required_members)
        return st.fixed_dictionaries(
            {n: s for n, s in members.items() if n in required},
            optional={n: s for n, s in members.items() if n not in required},
        )
    if isinstance(shape, ListShape):
        items = params_for(shape.member, depth + 1, name)
        return st.lists(items, max_size=12 if depth else 4)
    if isinstance(shape, MapShape):
        keys = _right_type(shape.key, depth + 1, "")
        of_queue = shape.key.name == "QueueAttributeName"
        if of_queue:  # the integer ones, whose parsing has most to get wrong, half the time
            keys = mostly(keys, st.sampled_from(INTEGER_ATTRIBUTES), 2)
        values = params_for(shape.value, depth + 1, "QueueAttributeValue" if of_queue else "")
        most = 12 if depth < 2 else 3
        return st.dictionaries(keys, values, min_size=int(of_queue), max_size=most)
    return _scalar(shape, name)


def _scalar(shape: Shape, name: str) -> st.SearchStrategy[Any]:
    if shape.type_name in ("integer", "long"):
        return st.one_of(st.integers(-2, 25), st.integers(), TEXT)
    if shape.type_name == "boolean":
        return st.booleans()
    likely = LIKELY.get(name) or list(getattr(shape, "enum", None) or [])
    if likely:  # what this parameter usually holds (a real queue, receipt, name), or any text
        return mostly(st.sampled_from(likely), TEXT, 4)
    return TEXT


@st.composite
def request(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """(action, parameters) of one request, now and then of an action SQS does not have."""
    action = draw(st.sampled_from([*ACTIONS, "sendmessage"]))
    if action not in ACTIONS:
        return action, draw(st.dictionaries(TEXT, TEXT, max_size=3))
    shape = MODEL.operation_model(action).input_shape
    params: dict[str, Any] = draw(_right_type(shape, 0, "")) if shape else {}
    if action == "CreateQueue" and isinstance(params.get("QueueName"), str):
        params["QueueName"] = draw(st.sampled_from(QUEUE_NAMES))
    if action == "ReceiveMessage":
        # A valid wait would stall the run; an invalid one is refused at once.
        params["WaitTimeSeconds"] = 0
    return action, params


def resolve(value: Any, actual: Mapping[str, str]) -> Any:
    """`value` with each placeholder string (`{queue-url-0}`) replaced by `actual`'s."""
    if isinstance(value, str):
        return actual.get(value, value)
    if isinstance(value, list):
        return [resolve(v, actual) for v in value]
    if isinstance(value, dict):
        return {resolve(k, actual): resolve(v, actual) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(resolve(v, actual) for v in value)
    return value


def json_body(params: Any) -> bytes:
    """JSON as any encoder may write it: integers of any size, NaN as a bare word (which
    no parser takes)."""
    return json.dumps(params).encode()


def query_pairs(action: str, params: dict[str, Any]) -> list[tuple[str, str]]:
    """The parameters under their Query names, as an SDK of the Query protocol writes
    them (a value of a wrong type written as text)."""
    operation = MODEL.operation_model(action) if action in ACTIONS else None
    pairs = [("Action", action), ("Version", "2012-11-05")]
    if operation is None or operation.input_shape is None:
        return pairs + [(str(k), str(v)) for k, v in params.items()]
    return pairs + _flatten(operation.input_shape, params, "")


def _flatten(shape: Shape, value: Any, key: str) -> list[tuple[str, str]]:
    if isinstance(shape, StructureShape) and isinstance(value, dict):
        pairs = []
        for name, member in shape.members.items():
            if name in value:
                child = _query_name(name, member)
                pairs += _flatten(member, value[name], f"{key}.{child}" if key else child)
        return pairs
    if isinstance(shape, ListShape) and isinstance(value, list):
        return [
            pair
            for i, item in enumerate(value, 1)
            for pair in _flatten(shape.member, item, f"{key}.{i}")
        ]
    if isinstance(shape, MapShape) and isinstance(value, dict):
        key_name = "Key" if key.rsplit(".", 1)[-1] == "Tag" else "Name"
        pairs = []
        for i, (entry_key, entry) in enumerate(value.items(), 1):
            pairs.append((f"{key}.{i}.{key_name}", str(entry_key)))
            pairs += _flatten(shape.value, entry, f"{key}.{i}.Value")
        return pairs
    if value is None:
        return []
    if isinstance(value, bool):
        return [(key, "true" if value else "false")]
    return [(key, value if isinstance(value, str) else json.dumps(value))]


def _query_name(name: str, shape: Shape) -> str:
    if isinstance(shape, ListShape) and isinstance(shape.member, StructureShape):
        return str(shape.member.name)
    return QUERY_NAMES.get(name, name)


NAME_PARTS = [
    *("Attribute", "MessageAttribute", "SendMessageBatchRequestEntry", "Tag", "AttributeName"),
    *("Name", "Value", "Key", "DataType", "StringValue", "BinaryValue", "Id", "MessageBody"),
    *("1", "2", "10", "11", "0", "01", "1000", "1001", "\u00b2", "-1", "", "x"),
]
# Parameters no SDK would send: names built of known parts in any order, with any index,
# and any value.
QUERY_NOISE = st.lists(
    st.tuples(st.lists(st.sampled_from(NAME_PARTS), min_size=1, max_size=6).map(".".join), TEXT),
    max_size=4,
)
# Ends of a form body that no encoder writes: empty fields, bad escapes, bytes not UTF-8.
RAW_TAILS = [b"", b"&", b"&&=", b"&MessageBody=%FF", b"&x=%E9t%C3", b"&x=%", b"&x=%4", b"&%ZZ"]


def form_body(pairs: Sequence[tuple[str, str]], tail: bytes = b"") -> bytes:
    """The pairs as a form body, percent-encoded as botocore does, then `tail` as is."""
    encoded = "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in pairs)
    return encoded.encode() + tail
