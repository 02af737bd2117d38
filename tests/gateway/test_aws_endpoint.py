"""The endpoint SQS and SNS share: which protocol a request goes to, read off the request
alone; and, on a real gateway, that a request signed for one service never reaches the
other's actions, and that SNS's unsigned links reach theirs, and only theirs."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import httpx
import orjson
import pytest
from botocore.auth import SigV4Auth, SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from starlette.requests import Request

from gateway.aws_endpoint import protocol_of
from tests.conftest import REGION, TEST_ACCESS_KEY_ID, TEST_SECRET_ACCESS_KEY, RunningGateway
from tests.gateway.sns.wire import NS, register, signed_sns_post, sns_error, sqs_query_error, xml
from tests.sigv4_signing import SqsRequest

CREDENTIALS = Credentials(TEST_ACCESS_KEY_ID, TEST_SECRET_ACCESS_KEY)
TOPIC_ARN = "arn:aws:sns:us-east-1:123456789012:orders"
SUBSCRIPTION_ARN = TOPIC_ARN + ":0f0e0d0c-0b0a-4090-8070-605040302010"


def starlette(method: str, query: str = "", headers: dict[str, str] | None = None) -> Request:
    raw = [(name.lower().encode(), value.encode()) for name, value in (headers or {}).items()]
    scope = {
        "type": "http",
        "method": method,
        "path": "/",
        "raw_path": b"/",
        "query_string": query.encode(),
        "headers": [(b"host", b"localhost"), *raw],
    }
    return Request(scope)


def signed_headers(service: str, target: str | None = None) -> dict[str, str]:
    headers = {"X-Amz-Target": target} if target else {}
    request = AWSRequest(method="POST", url="http://localhost/", data=b"", headers=headers)
    SigV4Auth(CREDENTIALS, service, REGION).add_auth(request)
    return dict(request.headers.items())


def presigned_query(service: str) -> str:
    request = AWSRequest(method="GET", url="http://localhost/?Action=ListTopics")
    SigV4QueryAuth(CREDENTIALS, service, REGION).add_auth(request)
    return request.url.partition("?")[2]


@pytest.mark.parametrize(
    ("request_", "protocol"),
    [
        (starlette("POST", headers=signed_headers("sns")), "sns"),
        (starlette("POST", headers=signed_headers("sqs")), "sqs"),
        (starlette("POST", headers=signed_headers("s3")), "sqs"),
        (starlette("POST", headers=signed_headers("sns", "AmazonSQS.SendMessage")), "sqs"),
        (starlette("POST", headers=signed_headers("sns", "Other.Publish")), "sns"),
        (starlette("GET", presigned_query("sns")), "sns"),
        (starlette("GET", presigned_query("sqs")), "sqs"),
        (starlette("GET", "Action=ConfirmSubscription&TopicArn=a&Token=t"), "sns"),
        (starlette("GET", "Action=Unsubscribe&SubscriptionArn=a"), "sns"),
        (starlette("GET", "Action=Confirm%53ubscription&Token=t"), "sns"),
        (starlette("GET", "Action=ConfirmSubscription&Action=Publish"), "sqs"),
        (starlette("GET", "Action=ConfirmSubscription&x=%ZZ"), "sqs"),
        (starlette("GET", "Action=Publish&TopicArn=a"), "sqs"),
        (starlette("GET", "Action=ListQueues"), "sqs"),
        (starlette("POST", "Action=ConfirmSubscription&Token=t"), "sqs"),
        (starlette("POST"), "sqs"),
        (starlette("GET", "Action=Unsubscribe", {"Authorization": "Basic abc"}), "sqs"),
        (starlette("POST", headers={"Authorization": "AWS4-HMAC-SHA256 Credential=x"}), "sqs"),
    ],
)
def test_the_protocol_is_picked_from_the_target_the_scope_or_the_link(
    request_: Request, protocol: str
) -> None:
    assert protocol_of(request_) == protocol


# -- on a real gateway ----------------------------------------------------------------------


def test_a_request_signed_for_sns_never_reaches_sqs(gateway: RunningGateway, sqs: Any) -> None:
    create = {"Action": "CreateQueue", "QueueName": "q", "Version": "2012-11-05"}
    assert sns_error(signed_sns_post(gateway.url, create)) == (
        400,
        "InvalidAction",
        "The action CreateQueue is not valid for this endpoint.",
    )
    body = orjson.dumps({"QueueName": "q"})
    as_json = SqsRequest(gateway.url, "AmazonSQS.CreateQueue", body).sign(service="sns").send()
    assert (as_json.status_code, as_json.json()) == (
        403,
        {
            "__type": "com.amazonaws.sqs#SignatureDoesNotMatch",
            "message": "Credential should be scoped to correct service: 'sqs'.",
        },
    )
    # A queue's own URL is SQS's alone.
    at_queue_url = {"Action": "SendMessage", "MessageBody": "b"}
    response = signed_sns_post(gateway.url, at_queue_url, path="/123456789012/q")
    assert sqs_query_error(response) == (403, "SignatureDoesNotMatch")
    assert sqs.list_queues().get("QueueUrls", []) == []


def test_a_request_signed_for_sqs_never_reaches_sns(
    monkeypatch: pytest.MonkeyPatch, gateway: RunningGateway, sqs: Any
) -> None:
    recorded = register(monkeypatch, "CreateTopic", {"TopicArn": TOPIC_ARN})
    response = signed_sns_post(gateway.url, {"Action": "CreateTopic", "Name": "t"}, "sqs")
    assert sqs_query_error(response) == (400, "InvalidAction")
    assert recorded.calls == []
    # And SQS itself still works beside SNS.
    assert sqs.create_queue(QueueName="q")["QueueUrl"].endswith("/123456789012/q")


def test_unsigned_and_malformed_requests_get_sqs_s_errors(gateway: RunningGateway) -> None:
    unsigned = httpx.post(gateway.url + "/", data={"Action": "ListQueues"})
    assert sqs_query_error(unsigned) == (403, "MissingAuthenticationToken")
    garbled = httpx.get(gateway.url + "/?Action=ListTopics", headers={"Authorization": "x"})
    assert sqs_query_error(garbled) == (403, "IncompleteSignature")


def test_a_presigned_sns_request_gets_sns_s_refusal(gateway: RunningGateway) -> None:
    request = AWSRequest(method="GET", url=gateway.url + "/?Action=ListTopics")
    SigV4QueryAuth(CREDENTIALS, "sns", REGION).add_auth(request)
    response = httpx.get(request.url)
    assert sns_error(response)[:2] == (403, "IncompleteSignature")


def test_sns_s_links_are_served_unsigned(
    monkeypatch: pytest.MonkeyPatch, gateway: RunningGateway
) -> None:
    confirmed = register(monkeypatch, "ConfirmSubscription", {"SubscriptionArn": SUBSCRIPTION_ARN})
    subscribe_url = "/?" + urlencode(
        {"Action": "ConfirmSubscription", "TopicArn": TOPIC_ARN, "Token": "t0ken"}
    )
    root = xml(httpx.get(gateway.url + subscribe_url))
    found = root.find("sns:ConfirmSubscriptionResult/sns:SubscriptionArn", NS)
    assert found is not None
    assert found.text == SUBSCRIPTION_ARN
    context, params = confirmed.only
    assert (context.account_id, context.action) == (None, "ConfirmSubscription")
    assert params == {"TopicArn": TOPIC_ARN, "Token": "t0ken"}

    unsubscribed = register(monkeypatch, "Unsubscribe", {})
    unsubscribe_url = "/?" + urlencode(
        {"Action": "Unsubscribe", "SubscriptionArn": SUBSCRIPTION_ARN}
    )
    response = httpx.get(gateway.url + unsubscribe_url)
    assert xml(response).tag == f"{{{NS['sns']}}}UnsubscribeResponse"
    assert unsubscribed.only[0].account_id is None


def test_a_link_carries_no_other_action(
    monkeypatch: pytest.MonkeyPatch, gateway: RunningGateway
) -> None:
    published = register(monkeypatch, "Publish", {"MessageId": "m"})
    confirmed = register(monkeypatch, "ConfirmSubscription", {"SubscriptionArn": "s"})
    link = f"{gateway.url}/?Action=ConfirmSubscription&TopicArn={TOPIC_ARN}&Token=t"
    # A body's fields would stand over the URL's: a link has none.
    for body in (f"Action=Publish&TopicArn={TOPIC_ARN}&Message=m", "Token=another"):
        smuggled = httpx.request("GET", link, content=body)
        assert sns_error(smuggled)[:2] == (403, "MissingAuthenticationToken")
    # The last of two Actions counts, for the routing as for the action.
    twice = httpx.get(f"{gateway.url}/?Action=ConfirmSubscription&Action=Publish&Message=m")
    assert sqs_query_error(twice) == (403, "MissingAuthenticationToken")
    by_post = httpx.post(link, headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert sqs_query_error(by_post) == (403, "MissingAuthenticationToken")
    assert published.calls == confirmed.calls == []
