"""The SNS Query protocol against botocore's own serializer and parser, for every
operation of SNS's model: what boto3 would send parses to what it was given, and what
TideMQ renders parses, in boto3, to what the action returned. Then the forms SNS refuses,
and the XML exactly as SNS writes it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

import botocore.session
import pytest
from botocore.model import ListShape, MapShape, Shape, StructureShape
from botocore.parsers import QueryParser
from botocore.serialize import QuerySerializer
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.core.text_rules import without_forbidden_chars
from gateway.query_form import decode_request
from gateway.sns import query_protocol
from gateway.sns.errors import SnsError
from gateway.sns.limits import MAX_INDEX, MAX_PARAMETERS

MODEL = botocore.session.get_session().get_service_model("sns")
OPERATIONS = sorted(MODEL.operation_names)
NS = "http://sns.amazonaws.com/doc/2010-03-31/"
METADATA = "<ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata>"
# Scalar types the protocol reads in forms, and writes in XML.
INPUT_SCALARS = {"string", "boolean", "integer", "blob"}
OUTPUT_SCALARS = {"string", "boolean", "integer", "timestamp"}

_ANY_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)
# What XML can carry: the rest is replaced on output (gateway/core/text_rules.py).
_XML_TEXT = _ANY_TEXT.map(without_forbidden_chars)


def values(
    shape: Shape, text: st.SearchStrategy[str], required: bool = False
) -> st.SearchStrategy[Any]:
    """Any value of the shape, as boto3 takes it as a parameter or gives it as a result
    (a required map with an entry at least: the Query form cannot write an empty one)."""
    if isinstance(shape, StructureShape):
        members = {
            name: values(member, text, name in shape.required_members)
            for name, member in shape.members.items()
        }
        must = {name: members.pop(name) for name in shape.required_members}
        return st.fixed_dictionaries(must, optional=members)
    if isinstance(shape, ListShape):
        return st.lists(values(shape.member, text), max_size=3)
    if isinstance(shape, MapShape):
        keys, items = values(shape.key, text), values(shape.value, text)
        return st.dictionaries(keys, items, min_size=int(required), max_size=3)
    scalars: dict[str, st.SearchStrategy[Any]] = {
        "string": text,
        "boolean": st.booleans(),
        "integer": st.integers(-(2**31), 2**31 - 1),
        "blob": st.binary(max_size=8),
        # Times SNS reports (a phone number's creation): from 1970 on.
        "timestamp": st.datetimes(datetime(1970, 1, 1), timezones=st.just(UTC)),
    }
    return scalars[shape.type_name]


def without_empty_maps(shape: Shape, value: Any) -> Any:
    """The value with its empty maps left out: the Query form has no way to write one."""
    if isinstance(shape, StructureShape):
        return {
            name: without_empty_maps(shape.members[name], member)
            for name, member in value.items()
            if not (isinstance(shape.members[name], MapShape) and not member)
        }
    if isinstance(shape, ListShape):
        return [without_empty_maps(shape.member, item) for item in value]
    if isinstance(shape, MapShape):
        return {k: without_empty_maps(shape.value, v) for k, v in value.items()}
    return value


def sent_by_botocore(action: str, params: dict[str, Any]) -> dict[str, str]:
    """The form boto3 sends for the call, encoded and decoded as on the wire."""
    request = QuerySerializer().serialize_to_request(params, MODEL.operation_model(action))
    body = urlencode(list(request["body"].items()), doseq=True).encode()
    return decode_request(b"", body, MAX_PARAMETERS)


def parsed_by_botocore(action: str, xml: str, status: int = 200) -> dict[str, Any]:
    response = {"body": xml.encode(), "headers": {}, "status_code": status}
    shape = MODEL.operation_model(action).output_shape if status == 200 else None
    parsed: dict[str, Any] = QueryParser().parse(response, shape)
    return parsed


def parse(action: str, form: dict[str, str]) -> dict[str, Any]:
    return query_protocol.parse(action, form.items())


def refusal(action: str, form: dict[str, str]) -> tuple[str, str]:
    with pytest.raises(SnsError) as caught:
        parse(action, form)
    assert caught.value.http_status == 400
    return caught.value.code, caught.value.message


def shapes(operation_shape: Shape | None) -> list[Shape]:
    """Every shape reachable from the operation's input or output shape."""
    found: list[Shape] = []
    stack = [operation_shape] if operation_shape is not None else []
    while stack:
        shape = stack.pop()
        found.append(shape)
        if isinstance(shape, StructureShape):
            stack.extend(shape.members.values())
        elif isinstance(shape, ListShape):
            stack.append(shape.member)
        elif isinstance(shape, MapShape):
            stack.extend([shape.key, shape.value])
    return found


# -- the model is what the protocol handles ----------------------------------------------


def test_the_model_has_only_the_forms_the_protocol_handles() -> None:
    assert MODEL.metadata["protocol"] == "query"
    assert MODEL.metadata["xmlNamespace"] == query_protocol.XML_NAMESPACE == NS
    inputs, outputs = set(), set()
    for action in OPERATIONS:
        operation = MODEL.operation_model(action)
        for shape in shapes(operation.input_shape) + shapes(operation.output_shape):
            assert not shape.serialization.get("flattened"), shape.name
        inputs |= {s.type_name for s in shapes(operation.input_shape)}
        outputs |= {s.type_name for s in shapes(operation.output_shape)}
    containers = {"structure", "list", "map"}
    assert inputs - containers <= INPUT_SCALARS
    assert outputs - containers <= OUTPUT_SCALARS


# -- round trips through botocore ---------------------------------------------------------


@pytest.mark.parametrize("action", OPERATIONS)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_what_botocore_sends_parses_to_what_it_was_given(action: str, data: st.DataObject) -> None:
    shape = MODEL.operation_model(action).input_shape
    params = data.draw(values(shape, _ANY_TEXT)) if shape is not None else {}
    assert parse(action, sent_by_botocore(action, params)) == without_empty_maps(shape, params)


@pytest.mark.parametrize("action", OPERATIONS)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_what_tidemq_renders_botocore_parses_to_the_result(
    action: str, data: st.DataObject
) -> None:
    shape = MODEL.operation_model(action).output_shape
    result = data.draw(values(shape, _XML_TEXT)) if shape is not None else {}
    parsed = parsed_by_botocore(action, query_protocol.render(action, result, "r-1"))
    assert parsed.pop("ResponseMetadata")["RequestId"] == "r-1"
    assert parsed == result


@given(code=_XML_TEXT.filter(bool), message=_XML_TEXT.filter(bool), sender_fault=st.booleans())
def test_what_tidemq_renders_as_an_error_botocore_reads_as_one(
    code: str, message: str, sender_fault: bool
) -> None:
    error = SnsError(code, message, http_status=400, sender_fault=sender_fault)
    parsed = parsed_by_botocore("Publish", query_protocol.render_error(error, "r-1"), 400)
    assert parsed["Error"] == {
        "Type": "Sender" if sender_fault else "Receiver",
        "Code": code,
        "Message": message,
    }
    assert parsed["ResponseMetadata"]["RequestId"] == "r-1"


# -- forms ----------------------------------------------------------------------------------


def test_maps_lists_and_structures_are_named_as_botocore_names_them() -> None:
    form = {
        "Action": "Publish",
        "Version": "2010-03-31",
        "TopicArn": "arn:aws:sns:us-east-1:123456789012:t",
        "Message": "m",
        "MessageAttributes.entry.1.Name": "a",
        "MessageAttributes.entry.1.Value.DataType": "String",
        "MessageAttributes.entry.1.Value.StringValue": "x",
        "MessageAttributes.entry.2.Name": "b",
        "MessageAttributes.entry.2.Value.DataType": "Binary",
        "MessageAttributes.entry.2.Value.BinaryValue": "AP8=",
    }
    assert parse("Publish", form) == {
        "TopicArn": "arn:aws:sns:us-east-1:123456789012:t",
        "Message": "m",
        "MessageAttributes": {
            "a": {"DataType": "String", "StringValue": "x"},
            "b": {"DataType": "Binary", "BinaryValue": b"\x00\xff"},
        },
    }
    tags = {
        "Name": "t",
        "Attributes.entry.1.key": "DisplayName",
        "Attributes.entry.1.value": "T",
        "Tags.member.1.Key": "k",
        "Tags.member.1.Value": "v",
    }
    assert parse("CreateTopic", tags) == {
        "Name": "t",
        "Attributes": {"DisplayName": "T"},
        "Tags": [{"Key": "k", "Value": "v"}],
    }
    subscribe = {"TopicArn": "a", "Protocol": "sqs", "ReturnSubscriptionArn": "true"}
    assert parse("Subscribe", subscribe)["ReturnSubscriptionArn"] is True
    assert parse("UntagResource", {"ResourceArn": "a", "TagKeys": ""})["TagKeys"] == []
    assert parse("ListOriginationNumbers", {"MaxResults": "30"}) == {"MaxResults": 30}


def test_entries_are_read_in_the_order_of_their_numbers_which_may_have_gaps() -> None:
    form = {"TopicArn": "a", "Label": "l", "ActionName.member.1": "Publish"}
    form |= {
        "AWSAccountId.member.10": "c",
        "AWSAccountId.member.2": "b",
        "AWSAccountId.member.1": "a",
    }
    assert parse("AddPermission", form)["AWSAccountId"] == ["a", "b", "c"]


@pytest.mark.parametrize("index", ["0", str(MAX_INDEX + 1), "01", "-1", "+1", "1e3", "", "x"])
def test_an_index_out_of_range_or_not_canonical_is_refused(index: str) -> None:
    form = {"ResourceArn": "a", f"Tags.member.{index}.Key": "k", f"Tags.member.{index}.Value": "v"}
    code, message = refusal("TagResource", form)
    assert code == "InvalidParameter"
    assert message == (
        f"Invalid parameter: Tags.member.{index} Reason: entries are numbered 1 to "
        f"{MAX_INDEX}, in ASCII digits"
    )


def test_a_missing_required_member_is_refused_with_sns_s_words() -> None:
    no_name = {"Attributes.entry.1.key": "DisplayName", "Attributes.entry.1.value": "T"}
    assert refusal("CreateTopic", no_name) == (
        "InvalidParameter",
        "Invalid parameter: Name Reason: no value for required parameter",
    )
    batch = {"TopicArn": "a", "PublishBatchRequestEntries.member.1.Id": "1"}
    assert refusal("PublishBatch", batch) == (
        "InvalidParameter",
        "Invalid parameter: PublishBatchRequestEntries.member.1.Message Reason: no value for "
        "required parameter",
    )
    no_type = {"Message": "m", "MessageAttributes.entry.1.Name": "a"}
    no_type["MessageAttributes.entry.1.Value.StringValue"] = "x"
    assert refusal("Publish", no_type)[1] == (
        "Invalid parameter: MessageAttributes.entry.1.Value.DataType Reason: no value for "
        "required parameter"
    )
    no_value = {"Name": "t", "Attributes.entry.1.key": "DisplayName"}
    assert refusal("CreateTopic", no_value)[1] == (
        "Invalid parameter: Attributes.entry.1.value Reason: no value for required parameter"
    )
    no_key = {"Message": "m", "MessageAttributes.entry.1.Value.DataType": "String"}
    assert refusal("Publish", no_key)[1] == (
        "Invalid parameter: MessageAttributes.entry.1.Name Reason: no value for required parameter"
    )


@pytest.mark.parametrize(
    ("action", "form", "message"),
    [
        (
            "Subscribe",
            {"TopicArn": "a", "Protocol": "sqs", "ReturnSubscriptionArn": "yes"},
            "Invalid parameter: ReturnSubscriptionArn Reason: must be true or false",
        ),
        (
            "ListOriginationNumbers",
            {"MaxResults": "ten"},
            "Invalid parameter: MaxResults Reason: must be an integer",
        ),
        (
            "Publish",
            {
                "Message": "m",
                "MessageAttributes.entry.1.Name": "b",
                "MessageAttributes.entry.1.Value.DataType": "Binary",
                "MessageAttributes.entry.1.Value.BinaryValue": "not base64!",
            },
            "Invalid parameter: MessageAttributes.entry.1.Value.BinaryValue Reason: must be base64",
        ),
        (
            "TagResource",
            {"ResourceArn": "a", "Tags.1.Key": "k", "Tags.1.Value": "v"},
            "Invalid parameter: Tags.1 Reason: the entries of Tags are Tags.member.1, "
            "Tags.member.2, ...",
        ),
        (
            "CreateTopic",
            {"Name": "t", "Attributes": "DisplayName=T"},
            "Invalid parameter: Attributes Reason: it takes no value of its own, only "
            "Attributes.entry.<N>",
        ),
        (
            "TagResource",
            {"ResourceArn": "a", "Tags.member.1": "k"},
            "Invalid parameter: Tags.member.1 Reason: it takes no value of its own, only "
            "Tags.member.1.<member>",
        ),
        (
            "DeleteTopic",
            {"TopicArn.x": "a"},
            "Invalid parameter: TopicArn.x Reason: TopicArn is a single value, with no parts",
        ),
    ],
)
def test_values_of_the_wrong_form_are_refused(
    action: str, form: dict[str, str], message: str
) -> None:
    assert refusal(action, form) == ("InvalidParameter", message)


def test_an_unknown_action_is_refused() -> None:
    assert refusal("CreateQueue", {"QueueName": "q"}) == (
        "InvalidAction",
        "The action CreateQueue is not valid for this endpoint.",
    )


def test_parameters_no_member_names_are_ignored() -> None:
    form = {"TopicArn": "a", "Version": "2010-03-31", "Signature": "s", "Tags.member.1.Key": "k"}
    assert parse("DeleteTopic", form) == {"TopicArn": "a"}


# -- XML --------------------------------------------------------------------------------


def test_an_action_without_an_output_shape_has_no_result_element() -> None:
    for action in ("DeleteTopic", "SetTopicAttributes", "Unsubscribe", "AddPermission"):
        assert query_protocol.render(action, {}, "r-1") == (
            f'<{action}Response xmlns="{NS}">{METADATA}</{action}Response>'
        )
    assert query_protocol.render("TagResource", {}, "r-1") == (
        f'<TagResourceResponse xmlns="{NS}"><TagResourceResult></TagResourceResult>'
        f"{METADATA}</TagResourceResponse>"
    )


def test_results_are_written_as_sns_writes_them() -> None:
    arn = "arn:aws:sns:us-east-1:123456789012:t"
    assert query_protocol.render("CreateTopic", {"TopicArn": arn}, "r-1") == (
        f'<CreateTopicResponse xmlns="{NS}"><CreateTopicResult><TopicArn>{arn}</TopicArn>'
        f"</CreateTopicResult>{METADATA}</CreateTopicResponse>"
    )
    topics = {"NextToken": "n", "Topics": [{"TopicArn": "a"}, {"TopicArn": "b"}]}
    assert query_protocol.render("ListTopics", topics, "r-1") == (
        f'<ListTopicsResponse xmlns="{NS}"><ListTopicsResult><Topics>'
        "<member><TopicArn>a</TopicArn></member><member><TopicArn>b</TopicArn></member>"
        "</Topics><NextToken>n</NextToken></ListTopicsResult>"
        f"{METADATA}</ListTopicsResponse>"
    )
    attributes = {"Attributes": {"DisplayName": "<T & U>\r\n"}}
    assert query_protocol.render("GetTopicAttributes", attributes, "r-1") == (
        f'<GetTopicAttributesResponse xmlns="{NS}"><GetTopicAttributesResult><Attributes>'
        "<entry><key>DisplayName</key><value>&lt;T &amp; U&gt;&#13;\n</value></entry>"
        f"</Attributes></GetTopicAttributesResult>{METADATA}</GetTopicAttributesResponse>"
    )
    failed = {
        "Successful": [],
        "Failed": [{"Id": "1", "Code": "InvalidParameter", "SenderFault": True}],
    }
    assert query_protocol.render("PublishBatch", failed, "r-1") == (
        f'<PublishBatchResponse xmlns="{NS}"><PublishBatchResult><Successful></Successful>'
        "<Failed><member><Id>1</Id><Code>InvalidParameter</Code><SenderFault>true</SenderFault>"
        f"</member></Failed></PublishBatchResult>{METADATA}</PublishBatchResponse>"
    )


def test_timestamps_are_written_in_iso_8601_utc() -> None:
    created = datetime(2026, 1, 2, 3, 4, 5, 600000, tzinfo=UTC)
    result = {"PhoneNumbers": [{"CreatedAt": created}]}
    xml = query_protocol.render("ListOriginationNumbers", result, "r-1")
    assert "<CreatedAt>2026-01-02T03:04:05.600000Z</CreatedAt>" in xml


def test_errors_are_written_as_sns_writes_them() -> None:
    error = SnsError("NotFound", "Topic does not exist", http_status=404)
    assert query_protocol.render_error(error, "r-1") == (
        f'<ErrorResponse xmlns="{NS}"><Error><Type>Sender</Type><Code>NotFound</Code>'
        "<Message>Topic does not exist</Message></Error><RequestId>r-1</RequestId>"
        "</ErrorResponse>"
    )
    internal = SnsError("InternalError", "a < b", http_status=500, sender_fault=False)
    assert "<Type>Receiver</Type><Code>InternalError</Code><Message>a &lt; b</Message>" in (
        query_protocol.render_error(internal, "r-1")
    )
