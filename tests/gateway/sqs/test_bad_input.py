"""Bad input gets SQS's 4xx error and changes nothing."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from botocore.exceptions import ClientError

from tests.conftest import RunningGateway
from tests.sigv4_signing import signed_post


def _post(gateway: RunningGateway, target: str, body: bytes) -> httpx.Response:
    """A correctly signed request, so what is refused is its content."""
    return signed_post(gateway.url, target, body)


@pytest.mark.parametrize(
    ("target", "body", "error_type"),
    [
        ("AmazonSQS.ListQueues", b"{not json", "SerializationException"),
        ("AmazonSQS.ListQueues", b"[1, 2]", "SerializationException"),
        ("AmazonSQS.FlyToTheMoon", b"{}", "InvalidAction"),
        ("", b"{}", "InvalidAction"),
        ("AmazonSQS.CreateQueue", b"{}", "InvalidParameterValue"),
        ("AmazonSQS.CreateQueue", b'{"QueueName": 7}', "InvalidParameterValue"),
        ("AmazonSQS.CreateQueue", b'{"QueueName": "bad name!"}', "InvalidParameterValue"),
        ("AmazonSQS.SendMessage", b"{}", "MissingParameter"),
    ],
)
def test_malformed_requests_get_a_4xx_sqs_error(
    gateway: RunningGateway, target: str, body: bytes, error_type: str
) -> None:
    response = _post(gateway, target, body)
    assert response.status_code == 400
    # The two codes SQS's model has no shape for are named as AWS names them.
    type_names = {
        "InvalidParameterValue": "com.amazon.coral.service#InvalidParameterValueException",
        "MissingParameter": "com.amazon.coral.service#MissingRequiredParameterException",
    }
    expected = type_names.get(error_type, f"com.amazonaws.sqs#{error_type}")
    assert response.json()["__type"] == expected
    assert response.headers["x-amzn-query-error"] == f"{error_type};Sender"
    assert response.json()["message"]
    assert response.headers["x-amzn-query-error"].endswith(";Sender")


def test_an_oversize_message_is_refused_and_not_stored(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="small", Attributes={"MaximumMessageSize": "1024"})["QueueUrl"]
    with pytest.raises(ClientError) as caught:
        sqs.send_message(QueueUrl=url, MessageBody="x" * 1025)
    assert caught.value.response["Error"]["Code"] == "InvalidParameterValue"
    assert "shorter than 1024 bytes" in caught.value.response["Error"]["Message"]
    assert "Messages" not in sqs.receive_message(QueueUrl=url)


def test_characters_sqs_forbids_are_refused(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="chars")["QueueUrl"]
    with pytest.raises(sqs.exceptions.InvalidMessageContents):
        sqs.send_message(QueueUrl=url, MessageBody="bell \x07")
    assert "Messages" not in sqs.receive_message(QueueUrl=url)


@pytest.mark.parametrize(
    "attributes",
    [
        {"AWS.reserved": {"DataType": "String", "StringValue": "x"}},
        {"n": {"DataType": "Number", "StringValue": "twelve"}},
        {"s": {"DataType": "String"}},
        {"t": {"DataType": "Integer", "StringValue": "1"}},
        {f"a{i}": {"DataType": "String", "StringValue": "x"} for i in range(11)},
    ],
)
def test_bad_message_attributes_are_refused(sqs: Any, attributes: dict[str, Any]) -> None:
    url = sqs.create_queue(QueueName="bad-attrs")["QueueUrl"]
    with pytest.raises(ClientError) as caught:
        sqs.send_message(QueueUrl=url, MessageBody="b", MessageAttributes=attributes)
    assert caught.value.response["Error"]["Code"] == "InvalidParameterValue"
    assert "Messages" not in sqs.receive_message(QueueUrl=url)


def test_out_of_range_receive_parameters_are_refused(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="ranges")["QueueUrl"]
    with pytest.raises(ClientError, match="Must be between 1 and 10"):
        sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=11)
    with pytest.raises(ClientError, match="Must be >= 0 and <= 20"):
        sqs.receive_message(QueueUrl=url, WaitTimeSeconds=21)


def test_forged_receipts_are_refused(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="forged")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    [message] = sqs.receive_message(QueueUrl=url)["Messages"]
    with pytest.raises(sqs.exceptions.ReceiptHandleIsInvalid):
        sqs.delete_message(QueueUrl=url, ReceiptHandle="forged-" + message["ReceiptHandle"])
    other = sqs.create_queue(QueueName="forged-other")["QueueUrl"]
    with pytest.raises(sqs.exceptions.ReceiptHandleIsInvalid):
        sqs.delete_message(QueueUrl=other, ReceiptHandle=message["ReceiptHandle"])
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert attributes["ApproximateNumberOfMessagesNotVisible"] == "1"


def test_bad_queue_attributes_create_nothing(sqs: Any) -> None:
    with pytest.raises(sqs.exceptions.InvalidAttributeValue):
        sqs.create_queue(QueueName="never", Attributes={"VisibilityTimeout": "99999"})
    with pytest.raises(sqs.exceptions.InvalidAttributeName):
        sqs.create_queue(QueueName="never", Attributes={"Colour": "blue"})
    with pytest.raises(sqs.exceptions.QueueDoesNotExist):
        sqs.get_queue_url(QueueName="never")


def test_health(gateway: RunningGateway) -> None:
    assert httpx.get(gateway.url + "/healthz").json() == {"status": "ok"}
    assert httpx.get(gateway.url + "/readyz").json() == {"status": "ok"}


@pytest.mark.parametrize("name", ["orders\n", "orders.fifo\n", "a\nb"])
def test_a_trailing_newline_does_not_make_a_name_valid(sqs: Any, name: str) -> None:
    with pytest.raises(ClientError, match="1 to 80 in length"):
        sqs.create_queue(QueueName=name)
    assert sqs.list_queues().get("QueueUrls", []) == []


def test_a_trailing_newline_does_not_make_an_attribute_name_valid(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="nl")["QueueUrl"]
    with pytest.raises(ClientError):
        sqs.send_message(
            QueueUrl=url,
            MessageBody="x",
            MessageAttributes={"name\n": {"DataType": "String", "StringValue": "v"}},
        )
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
