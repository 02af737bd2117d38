"""Every response of every API carries its request's id as `x-amzn-RequestId`, once; where
the protocol names the request id in its body too (SQS's and SNS's XML), it is the same."""

from __future__ import annotations

import uuid
import xml.etree.ElementTree as ET
from typing import Any

import httpx
import pytest
from botocore.exceptions import ClientError
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from tests.conftest import RunningGateway


def _the_id(response: httpx.Response) -> str:
    found = response.headers.get_list("x-amzn-requestid")
    assert len(found) == 1, (response.status_code, response.headers)
    assert uuid.UUID(found[0]).version == 4
    return found[0]


def _xml_request_id(text: str) -> str:
    ids = [e.text for e in ET.fromstring(text).iter() if e.tag.endswith("RequestId")]
    assert len(ids) == 1, text
    return str(ids[0])


def test_boto3_sees_the_header_as_its_request_id(sqs: Any, sns: Any) -> None:
    url = sqs.create_queue(QueueName="ids")["QueueUrl"]
    sent = sqs.send_message(QueueUrl=url, MessageBody="x")["ResponseMetadata"]
    topic = sns.create_topic(Name="ids")["ResponseMetadata"]
    for metadata in (sent, topic):
        assert metadata["RequestId"] == metadata["HTTPHeaders"]["x-amzn-requestid"]
    assert sent["RequestId"] != topic["RequestId"]


def test_an_sqs_query_error_names_the_same_id_in_its_xml(gateway: RunningGateway) -> None:
    answer = httpx.post(  # unsigned: refused
        gateway.url + "/",
        content="Action=ListQueues&Version=2012-11-05",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert 400 <= answer.status_code < 500, answer.text
    assert _xml_request_id(answer.text) == _the_id(answer)


def test_an_sns_error_names_the_same_id_in_its_xml(sns: Any) -> None:
    with pytest.raises(ClientError) as refused:
        sns.get_topic_attributes(TopicArn="arn:aws:sns:us-east-1:000000000000:nowhere")
    metadata = refused.value.response["ResponseMetadata"]
    assert refused.value.response["Error"]["Code"] == "NotFound"
    # botocore read RequestId from the error's XML body.
    assert metadata["RequestId"] == metadata["HTTPHeaders"]["x-amzn-requestid"]


def test_every_other_route_answers_with_an_id(gateway: RunningGateway) -> None:
    with httpx.Client(base_url=gateway.url) as http:
        answers = [
            http.post(  # SQS JSON protocol, unsigned
                "/",
                content=b"{}",
                headers={
                    "Content-Type": "application/x-amz-json-1.0",
                    "X-Amz-Target": "AmazonSQS.ListQueues",
                },
            ),
            http.get("/v1/queues"),  # REST without a token: 401
            http.get("/v1/no-such-route"),  # 404 from the router
            http.get("/healthz"),
            http.get("/readyz"),
            http.get("/metrics"),
            http.get("/console/login"),
            http.get("/asyncapi.json"),
        ]
    ids = [_the_id(answer) for answer in answers]
    assert len(set(ids)) == len(ids)
    assert [a.status_code for a in answers][:3] == [403, 401, 404]


def test_a_refused_websocket_upgrade_carries_an_id(gateway: RunningGateway) -> None:
    with pytest.raises(InvalidStatus) as refused:
        connect(gateway.url.replace("http://", "ws://") + "/v1/ws", open_timeout=10)
    response = refused.value.response
    assert response.status_code == 401
    assert uuid.UUID(response.headers["x-amzn-requestid"]).version == 4
