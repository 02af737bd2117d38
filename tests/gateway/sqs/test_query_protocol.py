"""The Query protocol of older SDKs: form-encoded requests, XML responses, real HTTP."""

from __future__ import annotations

import base64
import hashlib
import xml.etree.ElementTree as ET
from urllib.parse import urlencode

import httpx
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from tests.conftest import REGION, TEST_ACCESS_KEY_ID, TEST_SECRET_ACCESS_KEY, RunningGateway

NS = {"sqs": "http://queue.amazonaws.com/doc/2012-11-05/"}
FORM = "application/x-www-form-urlencoded"


def _call(gateway: RunningGateway, params: dict[str, str], path: str = "/") -> httpx.Response:
    body = urlencode({"Version": "2012-11-05", **params}).encode()
    request = AWSRequest(
        method="POST", url=gateway.url + path, data=body, headers={"Content-Type": FORM}
    )
    credentials = Credentials(TEST_ACCESS_KEY_ID, TEST_SECRET_ACCESS_KEY)
    SigV4Auth(credentials, "sqs", REGION).add_auth(request)
    return httpx.post(gateway.url + path, content=body, headers=dict(request.headers.items()))


def _xml(response: httpx.Response) -> ET.Element:
    assert response.headers["content-type"].startswith("text/xml")
    return ET.fromstring(response.content)


def _text(root: ET.Element, path: str) -> str:
    found = root.find(path, NS)
    assert found is not None, path
    return found.text or ""


def test_a_queue_round_trip_in_the_query_protocol(gateway: RunningGateway) -> None:
    created = _xml(
        _call(
            gateway,
            {
                "Action": "CreateQueue",
                "QueueName": "legacy",
                "Attribute.1.Name": "VisibilityTimeout",
                "Attribute.1.Value": "45",
            },
        )
    )
    url = _text(created, "sqs:CreateQueueResult/sqs:QueueUrl")
    assert url == f"{gateway.url}/123456789012/legacy"
    assert _text(created, "sqs:ResponseMetadata/sqs:RequestId")

    body = "line one\r\nline <two> & three"
    sent = _xml(
        _call(
            gateway,
            {
                "Action": "SendMessage",
                "QueueUrl": url,
                "MessageBody": body,
                "MessageAttribute.1.Name": "colour",
                "MessageAttribute.1.Value.DataType": "String",
                "MessageAttribute.1.Value.StringValue": "blue",
                "MessageAttribute.2.Name": "raw",
                "MessageAttribute.2.Value.DataType": "Binary",
                "MessageAttribute.2.Value.BinaryValue": base64.b64encode(b"\x00\xff").decode(),
            },
        )
    )
    result = "sqs:SendMessageResult/"
    assert _text(sent, result + "sqs:MD5OfMessageBody") == hashlib.md5(body.encode()).hexdigest()
    md5_of_attributes = _text(sent, result + "sqs:MD5OfMessageAttributes")

    received = _xml(
        _call(
            gateway,
            {
                "Action": "ReceiveMessage",
                "QueueUrl": url,
                "AttributeName.1": "All",
                "MessageAttributeName.1": "All",
            },
        )
    )
    message = received.find("sqs:ReceiveMessageResult/sqs:Message", NS)
    assert message is not None
    assert _text(message, "sqs:Body") == body  # CR LF survives the XML
    assert _text(message, "sqs:MD5OfMessageAttributes") == md5_of_attributes
    attributes = {
        _text(a, "sqs:Name"): _text(a, "sqs:Value") for a in message.findall("sqs:Attribute", NS)
    }
    assert attributes["ApproximateReceiveCount"] == "1"
    values = {
        _text(a, "sqs:Name"): _text(a, "sqs:Value/sqs:DataType")
        for a in message.findall("sqs:MessageAttribute", NS)
    }
    assert values == {"colour": "String", "raw": "Binary"}

    # Older SDKs post to the queue's own URL and leave QueueUrl out.
    deleted = _call(
        gateway,
        {"Action": "DeleteMessage", "ReceiptHandle": _text(message, "sqs:ReceiptHandle")},
        path="/123456789012/legacy",
    )
    assert deleted.status_code == 200
    assert _xml(deleted).tag == f"{{{NS['sqs']}}}DeleteMessageResponse"
    attributes_xml = _xml(
        _call(gateway, {"Action": "GetQueueAttributes", "QueueUrl": url, "AttributeName.1": "All"})
    )
    queue_attributes = {
        _text(a, "sqs:Name"): _text(a, "sqs:Value")
        for a in attributes_xml.findall("sqs:GetQueueAttributesResult/sqs:Attribute", NS)
    }
    assert queue_attributes["VisibilityTimeout"] == "45"
    assert queue_attributes["ApproximateNumberOfMessagesNotVisible"] == "0"


def test_batches_and_lists_in_the_query_protocol(gateway: RunningGateway) -> None:
    url = _text(
        _xml(_call(gateway, {"Action": "CreateQueue", "QueueName": "batchy"})),
        "sqs:CreateQueueResult/sqs:QueueUrl",
    )
    batch = _xml(
        _call(
            gateway,
            {
                "Action": "SendMessageBatch",
                "QueueUrl": url,
                "SendMessageBatchRequestEntry.1.Id": "a",
                "SendMessageBatchRequestEntry.1.MessageBody": "first",
                "SendMessageBatchRequestEntry.2.Id": "b",
                "SendMessageBatchRequestEntry.2.MessageBody": "second",
                "SendMessageBatchRequestEntry.2.DelaySeconds": "0",
            },
        )
    )
    ids = [
        _text(e, "sqs:Id")
        for e in batch.findall("sqs:SendMessageBatchResult/sqs:SendMessageBatchResultEntry", NS)
    ]
    assert ids == ["a", "b"]
    _call(gateway, {"Action": "TagQueue", "QueueUrl": url, "Tag.1.Key": "env", "Tag.1.Value": "x"})
    tags = _xml(_call(gateway, {"Action": "ListQueueTags", "QueueUrl": url}))
    [tag] = tags.findall("sqs:ListQueueTagsResult/sqs:Tag", NS)
    assert (_text(tag, "sqs:Key"), _text(tag, "sqs:Value")) == ("env", "x")
    listed = _xml(_call(gateway, {"Action": "ListQueues", "QueueNamePrefix": "batch"}))
    assert [u.text for u in listed.findall("sqs:ListQueuesResult/sqs:QueueUrl", NS)] == [url]


def test_errors_in_the_query_protocol(gateway: RunningGateway) -> None:
    missing = _call(gateway, {"Action": "GetQueueUrl", "QueueName": "nowhere"})
    assert missing.status_code == 400
    error = _xml(missing)
    assert _text(error, "sqs:Error/sqs:Code") == "AWS.SimpleQueueService.NonExistentQueue"
    assert _text(error, "sqs:Error/sqs:Type") == "Sender"
    assert _text(error, "sqs:Error/sqs:Message") == "The specified queue does not exist."
    unknown = _call(gateway, {"Action": "FlyToTheMoon"})
    assert (unknown.status_code, _text(_xml(unknown), "sqs:Error/sqs:Code")) == (
        400,
        "InvalidAction",
    )
    bad_number = _call(
        gateway, {"Action": "ReceiveMessage", "QueueUrl": "x", "MaxNumberOfMessages": "many"}
    )
    assert bad_number.status_code == 400
    unsigned = httpx.post(
        gateway.url + "/", content=b"Action=ListQueues", headers={"Content-Type": FORM}
    )
    assert unsigned.status_code == 403
    assert _text(_xml(unsigned), "sqs:Error/sqs:Code") == "MissingAuthenticationToken"
