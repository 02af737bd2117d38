"""SQS's error text, word for word: code, message and HTTP status as AWS answers them, for
tags, permissions, message attribute types, receipt handles, queue names and attribute
ranges, and the policy document AddPermission writes. docs/sqs-compatibility.md says
where each text comes from and where TideMQ keeps words of its own."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.conftest import RunningGateway
from tests.gateway.sqs.wire import NS, query, xml
from tests.sigv4_signing import signed_post

OWNER = "123456789012"
OTHER = "210987654321"
URL = "<url>"  # stands for the queue's URL in a case's parameters
NO_PARAMETER = "The request must contain the parameter"
TAG_KEY_LENGTH = "Tag keys must be between 1 and 128 characters in length."
TAG_KEY_CHARACTERS = (
    "Tag keys may only contain unicode letters, digits, whitespace, or one of these "
    "symbols: _ . : / = + - @"
)
TYPE_PREFIXES = (
    "The type of message (user) attribute 'a' is invalid. You must use only the following "
    "supported type prefixes: Binary, Number, String."
)
STANDARD_NAME = (
    "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"
)
FIFO_NAME = (
    "The name of a FIFO queue can only include alphanumeric characters, hyphens, or "
    "underscores, must end with .fifo suffix and be 1 to 80 in length."
)
NOT_IN_FLIGHT = (
    "for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not "
    "available for visibility timeout change."
)

Refusal = tuple[int, str, str]


def _refused(sqs: Any, action: str, params: dict[str, Any], url: str = "") -> Refusal:
    """(HTTP status, Error.Code, Error.Message) of a call that must fail."""
    given = {k: url if v == URL else v for k, v in params.items()}
    with pytest.raises(ClientError) as caught:
        getattr(sqs, action)(**given)
    response = caught.value.response
    return (
        response["ResponseMetadata"]["HTTPStatusCode"],
        response["Error"]["Code"],
        response["Error"]["Message"],
    )


def _invalid(message: str) -> Refusal:
    return (400, "InvalidParameterValue", message)


def _tags(count: int) -> dict[str, str]:
    return {f"k{i}": f"v{i}" for i in range(count)}


# -- tags -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "params", "expected"),
    [
        (
            "tag_queue",
            {"QueueUrl": URL, "Tags": _tags(51)},
            _invalid("Too many tags added for queue tagged."),
        ),
        (
            "create_queue",
            {"QueueName": "tagged", "tags": _tags(51)},
            _invalid("Too many tags added for queue tagged."),
        ),
        ("tag_queue", {"QueueUrl": URL, "Tags": {"k" * 129: "v"}}, _invalid(TAG_KEY_LENGTH)),
        ("tag_queue", {"QueueUrl": URL, "Tags": {"": "v"}}, _invalid(TAG_KEY_LENGTH)),
        (
            "tag_queue",
            {"QueueUrl": URL, "Tags": {"k": "v" * 257}},
            _invalid("Tag values must be between 0 and 256 characters in length."),
        ),
        ("tag_queue", {"QueueUrl": URL, "Tags": {"a#b": "v"}}, _invalid(TAG_KEY_CHARACTERS)),
        ("create_queue", {"QueueName": "x", "tags": {"a#b": "v"}}, _invalid(TAG_KEY_CHARACTERS)),
        (
            "tag_queue",
            {"QueueUrl": URL, "Tags": {"aws:owner": "v"}},
            _invalid('Tag keys cannot start with the reserved prefix "aws:".'),
        ),
        (
            "tag_queue",
            {"QueueUrl": URL, "Tags": {}},
            (400, "MissingParameter", f"{NO_PARAMETER} Tags."),
        ),
        ("untag_queue", {"QueueUrl": URL, "TagKeys": []}, _invalid(TAG_KEY_LENGTH)),
        ("untag_queue", {"QueueUrl": URL, "TagKeys": ["k" * 129]}, _invalid(TAG_KEY_LENGTH)),
        ("untag_queue", {"QueueUrl": URL, "TagKeys": ["a#b"]}, _invalid(TAG_KEY_CHARACTERS)),
    ],
)
def test_tag_errors(sqs: Any, action: str, params: dict[str, Any], expected: Refusal) -> None:
    url = sqs.create_queue(QueueName="tagged", tags={"kept": "yes"})["QueueUrl"]
    assert _refused(sqs, action, params, url) == expected
    assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"kept": "yes"}


def test_too_many_tags_counts_those_the_queue_has(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="tagged", tags=_tags(30))["QueueUrl"]
    more = {f"n{i}": "v" for i in range(21)}
    assert _refused(sqs, "tag_queue", {"QueueUrl": url, "Tags": more}) == _invalid(
        "Too many tags added for queue tagged."
    )
    assert len(sqs.list_queue_tags(QueueUrl=url)["Tags"]) == 30
    # Replacing a tag adds none: 30 + 20 new is AWS's 50.
    sqs.tag_queue(QueueUrl=url, Tags={"k0": "replaced", **{f"n{i}": "v" for i in range(20)}})
    assert len(sqs.list_queue_tags(QueueUrl=url)["Tags"]) == 50


# -- AddPermission / RemovePermission ----------------------------------------------------


def _grant(**given: Any) -> dict[str, Any]:
    params = {"QueueUrl": URL, "Label": "grant", "AWSAccountIds": [OTHER], "Actions": ["*"]}
    return params | given


def _action_refused(action: str, reason: str) -> Refusal:
    return _invalid(f"Value SQS:{action} for parameter ActionName is invalid. Reason: {reason}")


WSDL = "Please refer to the appropriate WSDL for a list of valid actions."
OWNER_ONLY = "Only the queue owner is allowed to invoke this action."
LABEL_RULE = (
    "Label can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"
)


@pytest.mark.parametrize(
    ("action", "params", "expected"),
    [
        ("add_permission", _grant(Actions=["Fly"]), _action_refused("Fly", WSDL)),
        (
            "add_permission",
            _grant(Actions=["SendMessage", "SendMessageBatch"]),
            _action_refused("SendMessageBatch", WSDL),
        ),
        (
            "add_permission",
            _grant(Actions=["DeleteQueue"]),
            _action_refused("DeleteQueue", OWNER_ONLY),
        ),
        ("add_permission", _grant(Actions=["TagQueue"]), _action_refused("TagQueue", OWNER_ONLY)),
        (
            "add_permission",
            _grant(Actions=["StartMessageMoveTask"]),
            _action_refused("StartMessageMoveTask", OWNER_ONLY),
        ),
        (
            "add_permission",
            _grant(Actions=["SendMessage"] * 8),
            (400, "OverLimit", "8 Actions were found, maximum allowed is 7."),
        ),
        (
            "add_permission",
            _grant(AWSAccountIds=[f"{n:012d}" for n in range(1, 52)]),
            (400, "OverLimit", "51 Principals were found, maximum allowed is 50."),
        ),
        (
            "add_permission",
            _grant(Actions=[]),
            (400, "MissingParameter", f"{NO_PARAMETER} Actions."),
        ),
        (
            "add_permission",
            _grant(AWSAccountIds=[]),
            _invalid("Value [] for parameter PrincipalId is invalid. Reason: Unable to verify."),
        ),
        (
            "add_permission",
            _grant(AWSAccountIds=[OTHER, "12345"]),
            _invalid(
                f"Value [{OTHER}, 12345] for parameter PrincipalId is invalid. "
                "Reason: Unable to verify."
            ),
        ),
        ("add_permission", _grant(Label=""), (400, "MissingParameter", f"{NO_PARAMETER} Label.")),
        ("add_permission", _grant(Label="bad label!"), _invalid(LABEL_RULE)),
        ("add_permission", _grant(Label="x" * 81), _invalid(LABEL_RULE)),
        (
            "add_permission",
            _grant(Label="taken"),
            _invalid("Value taken for parameter Label is invalid. Reason: Already exists."),
        ),
        (
            "remove_permission",
            {"QueueUrl": URL, "Label": "never"},
            _invalid("Value never for parameter Label is invalid. Reason: can't find label."),
        ),
        (
            "remove_permission",
            {"QueueUrl": URL, "Label": ""},
            (400, "MissingParameter", f"{NO_PARAMETER} Label."),
        ),
    ],
)
def test_permission_errors(
    sqs: Any, action: str, params: dict[str, Any], expected: Refusal
) -> None:
    url = sqs.create_queue(QueueName="shared")["QueueUrl"]
    sqs.add_permission(QueueUrl=url, Label="taken", AWSAccountIds=[OTHER], Actions=["*"])
    policy = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["Policy"])["Attributes"]
    assert _refused(sqs, action, params, url) == expected
    after = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["Policy"])["Attributes"]
    assert after == policy, "a refused change leaves the policy as it was"


def test_a_policy_has_at_most_20_statements(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="shared")["QueueUrl"]
    for n in range(20):
        sqs.add_permission(QueueUrl=url, Label=f"l{n}", AWSAccountIds=[OTHER], Actions=["*"])
    assert _refused(sqs, "add_permission", _grant(), url) == (
        400,
        "OverLimit",
        "21 Statements were found, maximum allowed is 20.",
    )


def test_the_policy_add_permission_writes(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="shared")["QueueUrl"]
    arn = f"arn:aws:sqs:us-east-1:{OWNER}:shared"
    sqs.add_permission(QueueUrl=url, Label="one", AWSAccountIds=[OTHER], Actions=["SendMessage"])
    sqs.add_permission(
        QueueUrl=url,
        Label="two",
        AWSAccountIds=[OTHER, OWNER],
        Actions=["ReceiveMessage", "DeleteMessage"],
    )
    text = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["Policy"])["Attributes"]["Policy"]
    expected = {
        "Version": "2008-10-17",
        "Id": f"{arn}/SQSDefaultPolicy",
        "Statement": [
            {
                "Sid": "one",
                "Effect": "Allow",
                "Principal": {"AWS": f"arn:aws:iam::{OTHER}:root"},
                "Action": "SQS:SendMessage",
                "Resource": arn,
            },
            {
                "Sid": "two",
                "Effect": "Allow",
                "Principal": {"AWS": [f"arn:aws:iam::{OTHER}:root", f"arn:aws:iam::{OWNER}:root"]},
                "Action": ["SQS:ReceiveMessage", "SQS:DeleteMessage"],
                "Resource": arn,
            },
        ],
    }
    assert json.loads(text) == expected
    assert text == json.dumps(expected, separators=(",", ":")), "AWS's order of keys"

    sqs.remove_permission(QueueUrl=url, Label="one")
    left = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["Policy"])["Attributes"]
    assert json.loads(left["Policy"])["Statement"] == expected["Statement"][1:]
    sqs.remove_permission(QueueUrl=url, Label="two")
    assert "Attributes" not in sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["Policy"])


# -- message attributes -----------------------------------------------------------------


def _attribute(**value: str) -> dict[str, dict[str, str]]:
    return {"a": value}


@pytest.mark.parametrize(
    ("attributes", "message"),
    [
        (_attribute(DataType="Strin", StringValue="x"), TYPE_PREFIXES),
        (_attribute(DataType="String.", StringValue="x"), TYPE_PREFIXES),
        (_attribute(DataType="Number.", StringValue="1"), TYPE_PREFIXES),
        (_attribute(DataType="string", StringValue="x"), TYPE_PREFIXES),
        (
            _attribute(DataType="String." + "x" * 250, StringValue="x"),
            "Message (user) attribute type must be shorter than 256 bytes.",
        ),
        (
            _attribute(DataType="", StringValue="x"),
            "The message (user) attribute 'a' must contain a non-empty message attribute type.",
        ),
        (
            _attribute(DataType="String", StringValue=""),
            "Message (user) attribute 'a' must contain a non-empty value of type 'String'.",
        ),
        (
            _attribute(DataType="Number"),
            "Message (user) attribute 'a' must contain a non-empty value of type 'Number'.",
        ),
        (
            {"a": {"DataType": "Binary", "BinaryValue": b""}},
            "Message (user) attribute 'a' must contain a non-empty value of type 'Binary'.",
        ),
        (
            _attribute(DataType="Binary", StringValue="x"),
            "Message (user) attribute 'a' with type 'Binary' must use field 'Binary'.",
        ),
        (
            {"a": {"DataType": "String", "BinaryValue": b"x"}},
            "Message (user) attribute 'a' with type 'String' must use field 'String'.",
        ),
        (
            {"a": {"DataType": "String", "StringValue": "x", "BinaryValue": b"x"}},
            "Message (user) attribute 'a' must have a single value.",
        ),
        (
            _attribute(DataType="Number", StringValue="ten"),
            "Can't cast the value of message (user) attribute 'a' to a number.",
        ),
    ],
)
def test_message_attribute_errors(
    sqs: Any, attributes: dict[str, dict[str, Any]], message: str
) -> None:
    url = sqs.create_queue(QueueName="typed")["QueueUrl"]
    params = {"QueueUrl": url, "MessageBody": "x", "MessageAttributes": attributes}
    assert _refused(sqs, "send_message", params) == _invalid(message)
    entry = {"Id": "e", "MessageBody": "x", "MessageAttributes": attributes}
    batch = sqs.send_message_batch(QueueUrl=url, Entries=[entry])
    assert batch["Failed"] == [
        {"Id": "e", "SenderFault": True, "Code": "InvalidParameterValue", "Message": message}
    ]
    assert "Messages" not in sqs.receive_message(QueueUrl=url)


def test_a_trace_header_must_be_a_string(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="traced")["QueueUrl"]
    params = {
        "QueueUrl": url,
        "MessageBody": "x",
        "MessageSystemAttributes": {"AWSTraceHeader": {"DataType": "Number", "StringValue": "1"}},
    }
    assert _refused(sqs, "send_message", params) == _invalid(
        "The message system attribute 'AWSTraceHeader' is reserved for AWS X-Ray trace "
        "header. The type must be 'String'."
    )


# -- receipt handles --------------------------------------------------------------------


def _not_valid(handle: str) -> Refusal:
    return (
        400,
        "ReceiptHandleIsInvalid",
        f'The input receipt handle "{handle}" is not a valid receipt handle.',
    )


def _received(sqs: Any, name: str) -> tuple[str, str]:
    url = sqs.create_queue(QueueName=name)["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="x")
    [message] = sqs.receive_message(QueueUrl=url)["Messages"]
    return url, message["ReceiptHandle"]


def test_receipt_handle_errors(sqs: Any) -> None:
    url, handle = _received(sqs, "handled")
    other_url, other_handle = _received(sqs, "elsewhere")
    long_fake = "AQEB" + "x" * 300
    for fake in ("garbage", long_fake, other_handle):
        assert _refused(sqs, "delete_message", {"QueueUrl": url, "ReceiptHandle": fake}) == (
            _not_valid(fake)
        )
        change = {"QueueUrl": url, "ReceiptHandle": fake, "VisibilityTimeout": 5}
        assert _refused(sqs, "change_message_visibility", change) == _not_valid(fake)

    sqs.delete_message(QueueUrl=url, ReceiptHandle=handle)
    sqs.delete_message(QueueUrl=url, ReceiptHandle=handle)  # a deleted message: still success
    change = {"QueueUrl": url, "ReceiptHandle": handle, "VisibilityTimeout": 5}
    assert _refused(sqs, "change_message_visibility", change) == _invalid(
        f"Value {handle} {NOT_IN_FLIGHT}"
    )
    assert sqs.receive_message(QueueUrl=other_url, VisibilityTimeout=0).get("Messages") is None


def test_a_stale_receipt_cannot_change_visibility(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="stale")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="x")
    [first] = sqs.receive_message(QueueUrl=url, VisibilityTimeout=0)["Messages"]
    sqs.receive_message(QueueUrl=url, VisibilityTimeout=60)
    old = first["ReceiptHandle"]
    change = {"QueueUrl": url, "ReceiptHandle": old, "VisibilityTimeout": 0}
    assert _refused(sqs, "change_message_visibility", change) == _invalid(
        f"Value {old} {NOT_IN_FLIGHT}"
    )


def test_receipt_handle_errors_in_batches(sqs: Any) -> None:
    url, handle = _received(sqs, "handled")
    sqs.delete_message(QueueUrl=url, ReceiptHandle=handle)
    deleted = sqs.delete_message_batch(
        QueueUrl=url,
        Entries=[{"Id": "gone", "ReceiptHandle": handle}, {"Id": "bad", "ReceiptHandle": "junk"}],
    )
    assert deleted["Successful"] == [{"Id": "gone"}]
    _, code, message = _not_valid("junk")
    assert deleted["Failed"] == [
        {"Id": "bad", "SenderFault": True, "Code": code, "Message": message}
    ]

    changed = sqs.change_message_visibility_batch(
        QueueUrl=url,
        Entries=[
            {"Id": "gone", "ReceiptHandle": handle, "VisibilityTimeout": 5},
            {"Id": "bad", "ReceiptHandle": "junk", "VisibilityTimeout": 5},
        ],
    )
    assert changed["Successful"] == []
    assert changed["Failed"] == [
        {
            "Id": "gone",
            "SenderFault": True,
            "Code": "InvalidParameterValue",
            "Message": f"Value {handle} {NOT_IN_FLIGHT}",
        },
        {"Id": "bad", "SenderFault": True, "Code": code, "Message": message},
    ]


# -- queue names ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "attributes", "message"),
    [
        ("", {}, "Queue name cannot be empty"),
        ("bad name!", {}, STANDARD_NAME),
        ("x" * 81, {}, STANDARD_NAME),
        ("orders.fifo", {}, STANDARD_NAME),
        ("orders.fifo", {"FifoQueue": "false"}, STANDARD_NAME),
        ("orders", {"FifoQueue": "true"}, FIFO_NAME),
        ("bad!.fifo", {"FifoQueue": "true"}, FIFO_NAME),
        ("x" * 76 + ".fifo", {"FifoQueue": "true"}, FIFO_NAME),
    ],
)
def test_queue_name_errors(sqs: Any, name: str, attributes: dict[str, str], message: str) -> None:
    params = {"QueueName": name, "Attributes": attributes}
    assert _refused(sqs, "create_queue", params) == _invalid(message)
    assert sqs.list_queues().get("QueueUrls", []) == []


def test_a_queue_name_must_be_given(gateway: RunningGateway) -> None:
    response = signed_post(gateway.url, "AmazonSQS.CreateQueue", b"{}")
    assert (response.status_code, response.json()["message"]) == (
        400,
        "Value for parameter QueueName is invalid. Reason: Must specify a queue name.",
    )
    assert response.headers["x-amzn-query-error"] == "InvalidParameterValue;Sender"
    # As AWS's JSON API names it: botocore reports it as QueryErrorCode.
    assert response.json()["__type"] == "com.amazon.coral.service#InvalidParameterValueException"


# -- attribute ranges -------------------------------------------------------------------


def _attribute_refused(name: str) -> Refusal:
    return (400, "InvalidAttributeValue", f"Invalid value for the parameter {name}.")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("MessageRetentionPeriod", "59"),
        ("MessageRetentionPeriod", "1209601"),
        ("DelaySeconds", "901"),
        ("DelaySeconds", "-1"),
        ("VisibilityTimeout", "43201"),
        ("ReceiveMessageWaitTimeSeconds", "21"),
    ],
)
def test_queue_attribute_range_errors(sqs: Any, name: str, value: str) -> None:
    create = {"QueueName": "ranged", "Attributes": {name: value}}
    assert _refused(sqs, "create_queue", create) == _attribute_refused(name)
    url = sqs.create_queue(QueueName="ranged")["QueueUrl"]
    change = {"QueueUrl": url, "Attributes": {name: value}}
    assert _refused(sqs, "set_queue_attributes", change) == _attribute_refused(name)


@pytest.mark.parametrize("delay_s", [901, -1])
def test_message_delay_errors(sqs: Any, delay_s: int) -> None:
    url = sqs.create_queue(QueueName="delayed")["QueueUrl"]
    message = (
        f"Value {delay_s} for parameter DelaySeconds is invalid. "
        "Reason: DelaySeconds must be >= 0 and <= 900."
    )
    params = {"QueueUrl": url, "MessageBody": "x", "DelaySeconds": delay_s}
    assert _refused(sqs, "send_message", params) == _invalid(message)
    entries = [{"Id": "late", "MessageBody": "x", "DelaySeconds": delay_s}]
    batch = sqs.send_message_batch(QueueUrl=url, Entries=entries)
    assert batch["Failed"] == [
        {"Id": "late", "SenderFault": True, "Code": "InvalidParameterValue", "Message": message}
    ]


def test_receive_and_visibility_range_errors(sqs: Any) -> None:
    url, handle = _received(sqs, "ranged")
    wait = {"QueueUrl": url, "WaitTimeSeconds": 21}
    assert _refused(sqs, "receive_message", wait) == _invalid(
        "Value 21 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, "
        "if provided."
    )
    change = {"QueueUrl": url, "ReceiptHandle": handle, "VisibilityTimeout": 43201}
    assert _refused(sqs, "change_message_visibility", change) == _invalid(
        "Value 43201 for parameter VisibilityTimeout is invalid. Reason: Total "
        "VisibilityTimeout for the message is beyond the limit [43200 seconds]"
    )


# -- the same words over the Query protocol ---------------------------------------------


def _query_refusal(gateway: RunningGateway, params: dict[str, str]) -> Refusal:
    response = query(gateway, params)
    error = xml(response).find("sqs:Error", NS)
    assert error is not None, response.text
    code, message = error.find("sqs:Code", NS), error.find("sqs:Message", NS)
    assert code is not None
    assert message is not None
    return response.status_code, code.text or "", message.text or ""


def test_the_same_words_over_the_query_protocol(gateway: RunningGateway) -> None:
    sqs = gateway.sqs_client()
    url, handle = _received(sqs, "queried")
    sqs.delete_message(QueueUrl=url, ReceiptHandle=handle)
    cases: list[tuple[dict[str, str], Refusal]] = [
        ({"Action": "UntagQueue", "QueueUrl": url, "TagKey": ""}, _invalid(TAG_KEY_LENGTH)),
        (
            {
                "Action": "AddPermission",
                "QueueUrl": url,
                "Label": "l",
                "AWSAccountId.1": OTHER,
                "ActionName.1": "Fly",
            },
            _action_refused("Fly", WSDL),
        ),
        (
            {"Action": "DeleteMessage", "QueueUrl": url, "ReceiptHandle": "junk"},
            _not_valid("junk"),
        ),
        (
            {
                "Action": "ChangeMessageVisibility",
                "QueueUrl": url,
                "ReceiptHandle": handle,
                "VisibilityTimeout": "5",
            },
            _invalid(f"Value {handle} {NOT_IN_FLIGHT}"),
        ),
        (
            {"Action": "CreateQueue", "QueueName": "q", "Attribute.1.Name": "FifoQueue"}
            | {"Attribute.1.Value": "true"},
            _invalid(FIFO_NAME),
        ),
    ]
    for params, expected in cases:
        assert _query_refusal(gateway, params) == expected, params["Action"]
