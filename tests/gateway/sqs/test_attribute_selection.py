"""ReceiveMessage's selection of message attributes (MessageAttributeNames) and system
attributes (MessageSystemAttributeNames, and the older AttributeNames), as SQS does it."""

from __future__ import annotations

import hashlib
import struct
from typing import Any

import pytest

ATTRIBUTES = {
    "Custom.a": {"DataType": "String", "StringValue": "1"},
    "Custom.b": {"DataType": "Number", "StringValue": "2"},
    "CustomX": {"DataType": "String", "StringValue": "3"},
    "other": {"DataType": "Binary", "BinaryValue": b"\x00\x01"},
}
STANDARD_SYSTEM = {
    "SenderId",
    "SentTimestamp",
    "ApproximateReceiveCount",
    "ApproximateFirstReceiveTimestamp",
}


def _md5_of_attributes(attributes: dict[str, Any]) -> str:
    """SQS's MD5OfMessageAttributes, computed here from its definition."""
    digest = hashlib.md5()
    for name in sorted(attributes):
        value = attributes[name]
        data_type = value["DataType"]
        for part in (name.encode(), data_type.encode()):
            digest.update(struct.pack(">I", len(part)) + part)
        if data_type.startswith("Binary"):
            payload = value["BinaryValue"]
            digest.update(b"\x02" + struct.pack(">I", len(payload)) + payload)
        else:
            payload = value["StringValue"].encode()
            digest.update(b"\x01" + struct.pack(">I", len(payload)) + payload)
    return digest.hexdigest()


def _received(sqs: Any, **selection: Any) -> dict[str, Any]:
    url = sqs.create_queue(QueueName="selection")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="b", MessageAttributes=ATTRIBUTES)
    [message] = sqs.receive_message(QueueUrl=url, VisibilityTimeout=0, **selection)["Messages"]
    return dict(message)


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["All"], set(ATTRIBUTES)),
        ([".*"], set(ATTRIBUTES)),
        (["Custom.*"], {"Custom.a", "Custom.b"}),
        (["Custom.a"], {"Custom.a"}),
        (["Custom.*", "other"], {"Custom.a", "Custom.b", "other"}),
        (["custom.a"], set()),  # names are case-sensitive
        (["Missing"], set()),
        ([], set()),
    ],
)
def test_message_attributes_are_selected_by_all_prefix_or_name(
    sqs: Any, names: list[str], expected: set[str]
) -> None:
    message = _received(sqs, MessageAttributeNames=names) if names else _received(sqs)
    selected = message.get("MessageAttributes", {})
    assert set(selected) == expected
    if expected:
        wanted = {name: ATTRIBUTES[name] for name in expected}
        assert message["MD5OfMessageAttributes"] == _md5_of_attributes(wanted)
        for name in expected:
            assert selected[name] == ATTRIBUTES[name]
    else:
        assert "MD5OfMessageAttributes" not in message


@pytest.mark.parametrize("parameter", ["MessageSystemAttributeNames", "AttributeNames"])
@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["All"], STANDARD_SYSTEM),
        (["SentTimestamp"], {"SentTimestamp"}),
        (["SenderId", "ApproximateReceiveCount"], {"SenderId", "ApproximateReceiveCount"}),
        (["sentTimestamp"], set()),  # exact names only, case-sensitive
        (["Sent*"], set()),  # no wildcards for system attributes
        (["MessageGroupId", "SequenceNumber"], set()),  # FIFO only
        (["Bogus"], set()),  # unknown names are ignored, not an error
    ],
)
def test_system_attributes_are_selected_by_all_or_exact_name(
    sqs: Any, parameter: str, names: list[str], expected: set[str]
) -> None:
    message = _received(sqs, **{parameter: names})
    assert set(message.get("Attributes", {})) == expected


def test_fifo_system_attributes(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="sel.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="b", MessageGroupId="g", MessageDeduplicationId="d")
    [message] = sqs.receive_message(
        QueueUrl=url,
        MessageSystemAttributeNames=["MessageGroupId", "MessageDeduplicationId", "SequenceNumber"],
    )["Messages"]
    attributes = message["Attributes"]
    assert (attributes["MessageGroupId"], attributes["MessageDeduplicationId"]) == ("g", "d")
    assert len(attributes["SequenceNumber"]) == 20


def test_both_system_attribute_parameters_add_up(sqs: Any) -> None:
    message = _received(
        sqs, AttributeNames=["SenderId"], MessageSystemAttributeNames=["SentTimestamp"]
    )
    assert set(message["Attributes"]) == {"SenderId", "SentTimestamp"}
