"""Strict input: numbers in ASCII digits only, text within the characters SQS allows,
encodings that decode; each refused with SQS's 4xx error (never a 500, never silently
repaired), and nothing changed by a refused request. Over both protocols, real HTTP."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from botocore.exceptions import ClientError

from gateway.sqs import query_protocol
from tests.conftest import RunningGateway
from tests.gateway.sqs.wire import NS, is_empty, new_queue, query, query_error, xml
from tests.sigv4_signing import signed_post, signed_query_post

# Digits to Python's str.isdigit, but not to int(): superscripts, circled, and Arabic-Indic
# (which int() takes, but SQS's ASCII grammar does not).
UNICODE_DIGITS = ["\u00b2", "\u2460", "\u0665"]  # ², ①, Arabic-Indic five
# Characters outside SQS's set (XML 1.0's): C0 controls other than tab, LF and CR, and
# the non-characters U+FFFE and U+FFFF.
FORBIDDEN = ["\x00", "\x1b", "\ufffe", "\uffff"]


# -- numbers: ASCII digits only ---------------------------------------------------------


@pytest.mark.parametrize("digit", UNICODE_DIGITS)
def test_unicode_digits_are_not_numbers_in_query_parameters(
    gateway: RunningGateway, sqs: Any, digit: str
) -> None:
    url = new_queue(sqs)
    receive = {"Action": "ReceiveMessage", "QueueUrl": url, "MaxNumberOfMessages": digit}
    assert query_error(query(gateway, receive)) == (400, "InvalidParameterValue")
    send = {"Action": "SendMessage", "QueueUrl": url, "MessageBody": "b", "DelaySeconds": digit}
    assert query_error(query(gateway, send)) == (400, "InvalidParameterValue")
    assert is_empty(sqs, url)


@pytest.mark.parametrize("digit", UNICODE_DIGITS)
def test_unicode_digits_are_not_indexes(gateway: RunningGateway, sqs: Any, digit: str) -> None:
    url = new_queue(sqs)
    create = {
        "Action": "CreateQueue",
        "QueueName": "indexed",
        f"Attribute.{digit}.Name": "VisibilityTimeout",
        f"Attribute.{digit}.Value": "5",
    }
    assert query_error(query(gateway, create)) == (400, "InvalidQueryParameter")
    batch = {
        "Action": "SendMessageBatch",
        "QueueUrl": url,
        f"SendMessageBatchRequestEntry.{digit}.Id": "a",
        f"SendMessageBatchRequestEntry.{digit}.MessageBody": "b",
    }
    assert query_error(query(gateway, batch)) == (400, "InvalidQueryParameter")
    assert is_empty(sqs, url)
    assert sqs.list_queues()["QueueUrls"] == [url]


@pytest.mark.parametrize("value", [*UNICODE_DIGITS, "0x10", "1_0", "\u00a05"])
@pytest.mark.parametrize("attribute", ["VisibilityTimeout", "MaximumMessageSize"])
def test_queue_attributes_take_ascii_integers_only(
    gateway: RunningGateway, sqs: Any, attribute: str, value: str
) -> None:
    with pytest.raises(sqs.exceptions.InvalidAttributeValue):
        sqs.create_queue(QueueName="never", Attributes={attribute: value})
    create = {
        "Action": "CreateQueue",
        "QueueName": "never",
        "Attribute.1.Name": attribute,
        "Attribute.1.Value": value,
    }
    assert query_error(query(gateway, create)) == (400, "InvalidAttributeValue")
    url = new_queue(sqs)
    with pytest.raises(sqs.exceptions.InvalidAttributeValue):
        sqs.set_queue_attributes(QueueUrl=url, Attributes={attribute: value})
    assert sqs.list_queues()["QueueUrls"] == [url]


@pytest.mark.parametrize("value", [*UNICODE_DIGITS, " 5", "5 ", "1_000", "Infinity", "0x1"])
def test_number_attributes_take_ascii_decimal_numbers_only(sqs: Any, value: str) -> None:
    url = new_queue(sqs)
    with pytest.raises(ClientError) as caught:
        sqs.send_message(
            QueueUrl=url,
            MessageBody="b",
            MessageAttributes={"n": {"DataType": "Number", "StringValue": value}},
        )
    assert caught.value.response["Error"]["Code"] == "InvalidParameterValue"
    assert is_empty(sqs, url)


@pytest.mark.parametrize("value", ["5", "-5", "+5", "0.5", ".5", "5.", "1e5", "-1.5E-3"])
def test_ascii_decimal_numbers_are_numbers(sqs: Any, value: str) -> None:
    url = new_queue(sqs)
    attributes = {"n": {"DataType": "Number", "StringValue": value}}
    sqs.send_message(QueueUrl=url, MessageBody="b", MessageAttributes=attributes)
    [message] = sqs.receive_message(QueueUrl=url, MessageAttributeNames=["All"])["Messages"]
    assert message["MessageAttributes"]["n"]["StringValue"] == value


# -- characters: SQS's set on every text that comes back ----------------------------------


@pytest.mark.parametrize("char", FORBIDDEN)
def test_forbidden_characters_in_message_attributes_are_refused(sqs: Any, char: str) -> None:
    url = new_queue(sqs)
    refused: list[dict[str, Any]] = [
        {"MessageAttributes": {"s": {"DataType": "String", "StringValue": f"a{char}b"}}},
        {"MessageAttributes": {"s": {"DataType": "String.custom", "StringValue": char}}},
        {"MessageAttributes": {"s": {"DataType": f"String.{char}", "StringValue": "v"}}},
        {"MessageAttributes": {f"n{char}": {"DataType": "String", "StringValue": "v"}}},
        {
            "MessageSystemAttributes": {
                "AWSTraceHeader": {"DataType": "String", "StringValue": f"Root={char}"}
            }
        },
    ]
    for fields in refused:
        with pytest.raises(ClientError) as caught:
            sqs.send_message(QueueUrl=url, MessageBody="b", **fields)
        assert caught.value.response["Error"]["Code"] == "InvalidParameterValue", fields
    assert is_empty(sqs, url)


@pytest.mark.parametrize("char", FORBIDDEN)
def test_forbidden_characters_in_tags_are_refused(sqs: Any, char: str) -> None:
    for tags in ({f"k{char}": "v"}, {"k": f"v{char}"}):
        with pytest.raises(ClientError) as caught:
            sqs.create_queue(QueueName="never", tags=tags)
        assert caught.value.response["Error"]["Code"] == "InvalidParameterValue"
    url = new_queue(sqs)
    for tags in ({f"k{char}": "v"}, {"k": f"v{char}"}):
        with pytest.raises(ClientError) as caught:
            sqs.tag_queue(QueueUrl=url, Tags=tags)
        assert caught.value.response["Error"]["Code"] == "InvalidParameterValue"
    assert "Tags" not in sqs.list_queue_tags(QueueUrl=url)
    assert sqs.list_queues()["QueueUrls"] == [url]


def test_a_refused_attribute_leaves_query_consumers_a_readable_queue(
    gateway: RunningGateway, sqs: Any
) -> None:
    url = new_queue(sqs)
    sqs.send_message(QueueUrl=url, MessageBody="good")
    poison = {
        "Action": "SendMessage",
        "QueueUrl": url,
        "MessageBody": "poison",
        "MessageAttribute.1.Name": "a",
        "MessageAttribute.1.Value.DataType": "String",
        "MessageAttribute.1.Value.StringValue": "\x00",
    }
    assert query_error(query(gateway, poison)) == (400, "InvalidParameterValue")
    tags = {"Action": "TagQueue", "QueueUrl": url, "Tag.1.Key": "k", "Tag.1.Value": "\x00"}
    assert query_error(query(gateway, tags)) == (400, "InvalidParameterValue")
    received = xml(query(gateway, {"Action": "ReceiveMessage", "QueueUrl": url}))
    bodies = [
        b.text for b in received.iterfind("sqs:ReceiveMessageResult/sqs:Message/sqs:Body", NS)
    ]
    assert bodies == ["good"]
    xml(query(gateway, {"Action": "ListQueueTags", "QueueUrl": url}))


def test_text_stored_before_the_rules_is_written_as_well_formed_xml() -> None:
    # Tags and messages a gateway took before it checked characters: the response that
    # carries them stays readable, with U+FFFD in their place.
    tags = query_protocol.render("ListQueueTags", {"Tags": {"k\x00": "v\uffff"}}, "r1")
    [tag] = ET.fromstring(tags).iterfind(".//sqs:Tag", NS)
    assert [element.text for element in tag] == ["k\ufffd", "v\ufffd"]
    message = {
        "MessageId": "m",
        "Body": "b\x1b",
        "MessageAttributes": {"a": {"StringValue": "\x00"}},
    }
    received = query_protocol.render("ReceiveMessage", {"Messages": [message]}, "r2")
    assert ET.fromstring(received).findtext(".//sqs:Body", namespaces=NS) == "b\ufffd"


@pytest.mark.parametrize("char", FORBIDDEN)
def test_an_error_that_quotes_forbidden_characters_is_well_formed_xml(
    gateway: RunningGateway, sqs: Any, char: str
) -> None:
    url = new_queue(sqs)
    quoted = {"Action": "ReceiveMessage", "QueueUrl": url, "MaxNumberOfMessages": f"1{char}"}
    assert query_error(query(gateway, quoted)) == (400, "InvalidParameterValue")
    group = {"Action": "SendMessage", "QueueUrl": url, "MessageBody": "b", "MessageGroupId": char}
    assert query_error(query(gateway, group))[0] == 400


# -- encodings and structure: refused, never repaired or ignored -------------------------


def test_an_invalid_utf8_escape_is_refused_not_replaced(gateway: RunningGateway, sqs: Any) -> None:
    url = new_queue(sqs)
    prefix = urlencode({"Action": "SendMessage", "QueueUrl": url}).encode()
    for body in (b"&MessageBody=caf%E9", b"&MessageBody=%FF", b"&MessageBody=%ED%A0%80"):
        response = signed_query_post(gateway.url, prefix + body)
        assert query_error(response) == (400, "MalformedQueryString"), body
    in_url = signed_query_post(
        gateway.url, b"MessageBody=x", path=f"/?QueueUrl={quote(url, safe='')}%FF"
    )
    assert query_error(in_url) == (400, "MalformedQueryString")
    assert is_empty(sqs, url)


def test_an_invalid_utf8_json_body_is_refused(gateway: RunningGateway, sqs: Any) -> None:
    url = new_queue(sqs)
    body = b'{"QueueUrl": "' + url.encode() + b'", "MessageBody": "caf\xe9"}'
    response = signed_post(gateway.url, "AmazonSQS.SendMessage", body)
    assert response.status_code == 400
    assert response.json()["__type"] == "com.amazonaws.sqs#SerializationException"
    assert is_empty(sqs, url)


def test_a_query_attribute_without_a_value_is_refused(gateway: RunningGateway, sqs: Any) -> None:
    create = {"Action": "CreateQueue", "QueueName": "q", "Attribute.1.Name": "VisibilityTimeout"}
    response = query(gateway, create)
    assert query_error(response) == (400, "MissingParameter")
    assert "Attribute.1.Value" in response.text
    url = new_queue(sqs)
    tag = {"Action": "TagQueue", "QueueUrl": url, "Tag.1.Key": "k"}
    assert query_error(query(gateway, tag)) == (400, "MissingParameter")
    nameless = {"Action": "SetQueueAttributes", "QueueUrl": url, "Attribute.1.Value": "5"}
    assert query_error(query(gateway, nameless)) == (400, "MissingParameter")
    assert sqs.list_queues()["QueueUrls"] == [url]
    assert "Tags" not in sqs.list_queue_tags(QueueUrl=url)
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])
    assert attributes["Attributes"] == {"VisibilityTimeout": "30"}


def test_a_message_attribute_without_a_name_is_refused(gateway: RunningGateway, sqs: Any) -> None:
    url = new_queue(sqs)
    nameless = {
        "Action": "SendMessage",
        "QueueUrl": url,
        "MessageBody": "b",
        "MessageAttribute.1.Value.DataType": "String",
        "MessageAttribute.1.Value.StringValue": "v",
    }
    response = query(gateway, nameless)
    assert query_error(response) == (400, "InvalidParameterValue")
    assert "non-empty message attribute name" in response.text
    with pytest.raises(ClientError, match="non-empty message attribute name"):
        sqs.send_message(
            QueueUrl=url,
            MessageBody="b",
            MessageAttributes={"": {"DataType": "String", "StringValue": "v"}},
        )
    assert is_empty(sqs, url)
