"""The SNS endpoint end to end: boto3's `sns` client against a real gateway, with
throwaway actions registered in the endpoint's table (the real actions come with the
topics core). Authentication, parsing, dispatch, rendering and every error path."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.exceptions import ClientError

from gateway.core.errors import CoreError, ErrorKind
from gateway.sns.actions import ACTIONS
from gateway.sns.errors import SnsError
from gateway.sns.limits import MAX_BATCH_ENTRIES, MAX_MESSAGE_BYTES, MAX_REQUEST_BYTES
from tests.conftest import (
    REGION,
    TEST_ACCESS_KEY_ID,
    TEST_ACCOUNT_ID,
    TEST_SECRET_ACCESS_KEY,
    MakeAccessKey,
    RunningGateway,
)
from tests.gateway.sns.wire import register, signed_sns_post, sns_error
from tests.sigv4_signing import signed_query_post

ARN = f"arn:aws:sns:us-east-1:{TEST_ACCOUNT_ID}:orders"
NO_RETRIES = Config(retries={"total_max_attempts": 1})


def client_error(caught: pytest.ExceptionInfo[ClientError]) -> tuple[int, str, str, str]:
    """(HTTP status, Type, Code, Message) as boto3 read them."""
    response: dict[str, Any] = caught.value.response
    error = response["Error"]
    status = response["ResponseMetadata"]["HTTPStatusCode"]
    return status, error["Type"], error["Code"], error["Message"]


def test_an_action_gets_the_callers_account_and_its_parameters(
    monkeypatch: pytest.MonkeyPatch, gateway: RunningGateway, sns: Any
) -> None:
    recorded = register(monkeypatch, "CreateTopic", {"TopicArn": ARN})
    response = sns.create_topic(
        Name="orders",
        Attributes={"DisplayName": "<Orders & more>"},
        Tags=[{"Key": "team", "Value": "a"}, {"Key": "tier", "Value": "1"}],
    )
    assert response["TopicArn"] == ARN
    metadata = response["ResponseMetadata"]
    assert metadata["RequestId"] == metadata["HTTPHeaders"]["x-amzn-requestid"]
    context, params = recorded.only
    assert (context.account_id, context.action, context.base_url) == (
        TEST_ACCOUNT_ID,
        "CreateTopic",
        gateway.url,
    )
    assert params == {
        "Name": "orders",
        "Attributes": {"DisplayName": "<Orders & more>"},
        "Tags": [{"Key": "team", "Value": "a"}, {"Key": "tier", "Value": "1"}],
    }


def test_the_account_is_the_signing_key_s(
    monkeypatch: pytest.MonkeyPatch, gateway: RunningGateway, make_access_key: MakeAccessKey
) -> None:
    recorded = register(monkeypatch, "DeleteTopic", {})
    other = make_access_key("111122223333")
    client = gateway.sns_client(
        access_key_id=other.key.access_key_id, secret_access_key=other.secret_access_key
    )
    response = client.delete_topic(TopicArn=ARN)
    assert set(response) == {"ResponseMetadata"}  # DeleteTopic has no result
    assert recorded.only[0].account_id == "111122223333"


def test_message_attributes_arrive_typed(monkeypatch: pytest.MonkeyPatch, sns: Any) -> None:
    recorded = register(monkeypatch, "Publish", {"MessageId": "m-1", "SequenceNumber": "7"})
    response = sns.publish(
        TopicArn=ARN,
        Message="line one\r\nline <two>",
        Subject="s",
        MessageAttributes={
            "colour": {"DataType": "String", "StringValue": "blue"},
            "raw": {"DataType": "Binary", "BinaryValue": b"\x00\xff"},
        },
    )
    assert (response["MessageId"], response["SequenceNumber"]) == ("m-1", "7")
    assert recorded.only[1] == {
        "TopicArn": ARN,
        "Message": "line one\r\nline <two>",
        "Subject": "s",
        "MessageAttributes": {
            "colour": {"DataType": "String", "StringValue": "blue"},
            "raw": {"DataType": "Binary", "BinaryValue": b"\x00\xff"},
        },
    }


def test_the_largest_batch_in_the_most_verbose_encoding_is_read(
    monkeypatch: pytest.MonkeyPatch, sns: Any
) -> None:
    # Binary attributes whose base64 is all "+" and "/", which a form writes as %2B and
    # %2F: 4 bytes on the wire for each byte of the message, the most any encoding takes.
    value = b"\xfb\xff\xbf" * ((MAX_MESSAGE_BYTES - 64) // 3)
    assert set(base64.b64encode(value)) == set(b"+/")
    entries = [
        {
            "Id": f"e{i}",
            "Message": "m",
            "MessageAttributes": {"a": {"DataType": "Binary", "BinaryValue": value}},
        }
        for i in range(MAX_BATCH_ENTRIES)
    ]
    successful = [{"Id": f"e{i}", "MessageId": f"m{i}"} for i in range(MAX_BATCH_ENTRIES)]
    recorded = register(monkeypatch, "PublishBatch", {"Successful": successful, "Failed": []})
    response = sns.publish_batch(TopicArn=ARN, PublishBatchRequestEntries=entries)
    assert (response["Successful"], response["Failed"]) == (successful, [])
    assert recorded.only[1]["PublishBatchRequestEntries"] == entries


def test_a_body_larger_than_any_valid_request_is_refused_unread(
    monkeypatch: pytest.MonkeyPatch, gateway: RunningGateway
) -> None:
    recorded = register(monkeypatch, "ListTopics", {"Topics": []})
    oversize = b"Action=ListTopics&Padding=" + b"x" * MAX_REQUEST_BYTES
    response = signed_query_post(gateway.url, oversize, service="sns")
    assert sns_error(response)[:2] == (413, "RequestTooLarge")
    assert recorded.calls == []


def test_an_action_tidemq_does_not_serve_is_invalid(
    monkeypatch: pytest.MonkeyPatch, gateway: RunningGateway, sns: Any
) -> None:
    monkeypatch.delitem(ACTIONS, "ListTopics", raising=False)
    with pytest.raises(ClientError) as caught:
        sns.list_topics()
    assert client_error(caught) == (
        400,
        "Sender",
        "InvalidAction",
        "The action ListTopics is not valid for this endpoint.",
    )
    unknown = signed_sns_post(gateway.url, {"Action": "Frobnicate"})
    assert sns_error(unknown) == (
        400,
        "InvalidAction",
        "The action Frobnicate is not valid for this endpoint.",
    )
    no_action = signed_sns_post(gateway.url, {"Version": "2010-03-31"})
    assert sns_error(no_action) == (
        400,
        "MissingAction",
        "The request must contain the parameter Action.",
    )


def test_a_malformed_form_never_reaches_the_action(
    monkeypatch: pytest.MonkeyPatch, gateway: RunningGateway
) -> None:
    recorded = register(monkeypatch, "TagResource", {})
    zero = {"Action": "TagResource", "ResourceArn": ARN, "Tags.member.0.Key": "k"}
    assert sns_error(signed_sns_post(gateway.url, zero)) == (
        400,
        "InvalidParameter",
        "Invalid parameter: Tags.member.0 Reason: entries are numbered 1 to 1000, in ASCII digits",
    )
    missing = {"Action": "TagResource", "ResourceArn": ARN}
    assert sns_error(signed_sns_post(gateway.url, missing))[:2] == (400, "InvalidParameter")
    bad_escape = signed_query_post(gateway.url, b"Action=TagResource&Tags=%ZZ", service="sns")
    assert sns_error(bad_escape)[:2] == (400, "MalformedQueryString")
    assert recorded.calls == []


@pytest.mark.parametrize(
    ("raised", "expected"),
    [
        (
            CoreError("NotFound", "Topic does not exist", ErrorKind.NOT_FOUND),
            (404, "Sender", "NotFound", "Topic does not exist"),
        ),
        (
            SnsError("InvalidParameter", "Invalid parameter: Name"),
            (400, "Sender", "InvalidParameter", "Invalid parameter: Name"),
        ),
        (
            CoreError("TopicLimitExceeded", "Too many topics", ErrorKind.FORBIDDEN),
            (403, "Sender", "TopicLimitExceeded", "Too many topics"),
        ),
        (
            RuntimeError("a bug"),
            (
                500,
                "Receiver",
                "InternalError",
                "We encountered an internal error. Please try again.",
            ),
        ),
    ],
)
def test_errors_reach_boto3_as_sns_s(
    monkeypatch: pytest.MonkeyPatch,
    gateway: RunningGateway,
    raised: Exception,
    expected: tuple[int, str, str, str],
) -> None:
    register(monkeypatch, "GetTopicAttributes", raised)
    sns = gateway.sns_client(config=NO_RETRIES)
    with pytest.raises(ClientError) as caught:
        sns.get_topic_attributes(TopicArn=ARN)
    assert client_error(caught) == expected
    modelled = {"NotFound": sns.exceptions.NotFoundException}
    if expected[2] in modelled:
        assert isinstance(caught.value, modelled[expected[2]])


def test_bad_signatures_are_refused_before_the_action(
    monkeypatch: pytest.MonkeyPatch, gateway: RunningGateway
) -> None:
    recorded = register(monkeypatch, "ListTopics", {"Topics": []})
    wrong_secret = gateway.sns_client(secret_access_key="wrong")
    with pytest.raises(ClientError) as caught:
        wrong_secret.list_topics()
    assert client_error(caught)[:3] == (403, "Sender", "SignatureDoesNotMatch")
    unknown_key = gateway.sns_client(access_key_id="TQUNKNOWNKEY00000001")
    with pytest.raises(ClientError) as caught:
        unknown_key.list_topics()
    assert client_error(caught)[:3] == (403, "Sender", "InvalidClientTokenId")
    assert recorded.calls == []


def test_a_signed_get_carries_its_form_in_its_url(
    monkeypatch: pytest.MonkeyPatch, gateway: RunningGateway
) -> None:
    recorded = register(monkeypatch, "ListSubscriptionsByTopic", {"Subscriptions": []})
    url = f"{gateway.url}/?" + urlencode(
        {"Action": "ListSubscriptionsByTopic", "TopicArn": ARN, "NextToken": "n"}
    )
    request = AWSRequest(method="GET", url=url)
    credentials = Credentials(TEST_ACCESS_KEY_ID, TEST_SECRET_ACCESS_KEY)
    SigV4Auth(credentials, "sns", REGION).add_auth(request)
    response = httpx.get(url, headers=dict(request.headers.items()))
    assert response.status_code == 200, response.text
    assert recorded.only[1] == {"TopicArn": ARN, "NextToken": "n"}
    assert recorded.only[0].account_id == TEST_ACCOUNT_ID
