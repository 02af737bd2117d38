"""Limits a request meets before it is parsed, or while: its size, its number of
parameters, the indexes of its lists. Each refusal is SQS's 4xx, changes nothing, and
costs the gateway no more than reading what it refuses."""

from __future__ import annotations

from typing import Any

import httpx
import orjson

from gateway.sqs.limits import MAX_INDEX, MAX_PARAMETERS, max_request_bytes
from tests.conftest import RunningGateway
from tests.gateway.sqs.wire import form, is_empty, new_queue, query_error
from tests.sigv4_signing import signed_post, signed_query_post

DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024


def test_more_parameters_than_any_action_needs_are_refused(
    gateway: RunningGateway, sqs: Any
) -> None:
    params = {"Action": "CreateQueue", "QueueName": "many"}
    for i in range(1, MAX_PARAMETERS // 2 + 2):
        params[f"Attribute.{i}.Name"] = "VisibilityTimeout"
        params[f"Attribute.{i}.Value"] = "5"
    response = signed_query_post(gateway.url, form(params))
    assert query_error(response) == (400, "InvalidQueryParameter")
    assert sqs.list_queues()["QueueUrls"] == []


def test_the_many_attributes_request_that_froze_the_gateway_is_refused(
    gateway: RunningGateway, sqs: Any
) -> None:
    url = new_queue(sqs)
    params = {"Action": "SendMessage", "QueueUrl": url, "MessageBody": "b"}
    for i in range(1, 4001):
        params[f"MessageAttribute.{i}.Name"] = f"a{i}"
        params[f"MessageAttribute.{i}.Value.DataType"] = "String"
        params[f"MessageAttribute.{i}.Value.StringValue"] = "x" * 100
    response = signed_query_post(gateway.url, form(params))
    assert query_error(response) == (400, "InvalidQueryParameter")
    assert httpx.get(gateway.url + "/healthz").json() == {"status": "ok"}
    assert is_empty(sqs, url)


def test_an_index_out_of_range_or_not_canonical_is_refused(
    gateway: RunningGateway, sqs: Any
) -> None:
    url = new_queue(sqs)
    for index in (str(MAX_INDEX + 1), "0", "01", "-1", "1e3", ""):
        params = {
            "Action": "SendMessage",
            "QueueUrl": url,
            "MessageBody": "b",
            f"MessageAttribute.{index}.Name": "a",
            f"MessageAttribute.{index}.Value.DataType": "String",
            f"MessageAttribute.{index}.Value.StringValue": "v",
        }
        response = signed_query_post(gateway.url, form(params))
        assert query_error(response) == (400, "InvalidQueryParameter"), index
    assert is_empty(sqs, url)


def test_indexes_need_not_be_consecutive(gateway: RunningGateway, sqs: Any) -> None:
    url = new_queue(sqs)
    params = {
        "Action": "SendMessage",
        "QueueUrl": url,
        "MessageBody": "b",
        f"MessageAttribute.{MAX_INDEX}.Name": "last",
        f"MessageAttribute.{MAX_INDEX}.Value.DataType": "String",
        f"MessageAttribute.{MAX_INDEX}.Value.StringValue": "v",
        "MessageAttribute.7.Name": "seventh",
        "MessageAttribute.7.Value.DataType": "Number",
        "MessageAttribute.7.Value.StringValue": "7",
    }
    assert signed_query_post(gateway.url, form(params)).status_code == 200
    [message] = sqs.receive_message(QueueUrl=url, MessageAttributeNames=["All"])["Messages"]
    assert set(message["MessageAttributes"]) == {"last", "seventh"}


def test_a_json_body_with_more_values_than_any_action_needs_is_refused(
    gateway: RunningGateway, sqs: Any
) -> None:
    url = new_queue(sqs)
    attributes = {f"a{i}": {"DataType": "String", "StringValue": "v"} for i in range(2000)}
    body = orjson.dumps({"QueueUrl": url, "MessageBody": "b", "MessageAttributes": attributes})
    response = signed_post(gateway.url, "AmazonSQS.SendMessage", body)
    assert response.status_code == 400
    assert response.json()["__type"] == "com.amazonaws.sqs#SerializationException"
    # Commas, brackets and quotes inside strings are text, not structure.
    text = '",[{\\"' * 20_000
    body = orjson.dumps({"QueueUrl": url, "MessageBody": text})
    assert signed_post(gateway.url, "AmazonSQS.SendMessage", body).status_code == 200
    [message] = sqs.receive_message(QueueUrl=url)["Messages"]
    assert message["Body"] == text


def test_a_body_larger_than_any_valid_request_is_refused_unread(
    gateway: RunningGateway, sqs: Any
) -> None:
    limit = max_request_bytes(DEFAULT_MAX_MESSAGE_BYTES)
    oversize = b"Action=ListQueues&Padding=" + b"x" * limit
    response = signed_query_post(gateway.url, oversize)
    assert query_error(response) == (413, "RequestTooLarge")
    json_oversize = b'{"QueueNamePrefix": "' + b"x" * limit + b'"}'
    response = signed_post(gateway.url, "AmazonSQS.ListQueues", json_oversize)
    assert (response.status_code, response.json()["__type"]) == (
        413,
        "com.amazonaws.sqs#RequestTooLarge",
    )
    assert sqs.list_queues()["QueueUrls"] == []


def test_the_largest_batch_in_the_most_verbose_encoding_is_read(
    gateway: RunningGateway, sqs: Any
) -> None:
    # Ten messages of the largest size, every character written as a \u escape (as JSON
    # encoders that escape HTML characters do): within the limit, so SQS's own answer.
    url = new_queue(sqs)
    body = "\\u003c" * DEFAULT_MAX_MESSAGE_BYTES
    entries = ",".join(f'{{"Id": "e{i}", "MessageBody": "{body}"}}' for i in range(10))
    payload = f'{{"QueueUrl": "{url}", "Entries": [{entries}]}}'.encode()
    assert len(payload) <= max_request_bytes(DEFAULT_MAX_MESSAGE_BYTES)
    response = signed_post(gateway.url, "AmazonSQS.SendMessageBatch", payload)
    assert (response.status_code, response.json()["__type"]) == (
        400,
        "com.amazonaws.sqs#BatchRequestTooLong",
    )
    assert is_empty(sqs, url)
