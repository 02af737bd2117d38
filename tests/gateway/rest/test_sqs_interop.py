"""The REST API and the SQS API are two views of the same queues and messages."""

from __future__ import annotations

from typing import Any

import httpx


def test_queues_made_on_either_api_are_seen_on_the_other(rest: httpx.Client, sqs: Any) -> None:
    sqs.create_queue(QueueName="from-sqs", Attributes={"DelaySeconds": "3"})
    created = rest.post("/v1/queues", json={"name": "from-rest", "tags": {"team": "a"}}).json()
    assert [q["name"] for q in rest.get("/v1/queues").json()["queues"]] == ["from-rest", "from-sqs"]
    assert sorted(sqs.list_queues()["QueueUrls"]) == sorted(
        q["url"] for q in rest.get("/v1/queues").json()["queues"]
    )
    assert rest.get("/v1/queues/from-sqs").json()["attributes"]["DelaySeconds"] == "3"
    url = sqs.get_queue_url(QueueName="from-rest")["QueueUrl"]
    assert url == created["url"]
    assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"team": "a"}
    rest.delete("/v1/queues/from-sqs")
    assert sqs.list_queues()["QueueUrls"] == [url]


def test_a_message_sent_on_rest_is_received_on_sqs(rest: httpx.Client, sqs: Any) -> None:
    url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    sent = rest.post(
        "/v1/queues/orders/messages",
        json={
            "body": "from rest",
            "attributes": {"kind": {"data_type": "String", "string_value": "order"}},
            "system_attributes": {
                "AWSTraceHeader": {"data_type": "String", "string_value": "Root=1-abc"}
            },
        },
    ).json()
    [message] = sqs.receive_message(
        QueueUrl=url, MessageAttributeNames=["All"], AttributeNames=["All"]
    )["Messages"]
    assert message["MessageId"] == sent["message_id"]
    assert message["Body"] == "from rest"
    assert message["MD5OfBody"] == sent["md5_of_body"]
    assert message["MD5OfMessageAttributes"] == sent["md5_of_attributes"]
    assert message["MessageAttributes"] == {"kind": {"DataType": "String", "StringValue": "order"}}
    assert message["Attributes"]["AWSTraceHeader"] == "Root=1-abc"
    # A receipt from SQS deletes through REST.
    deleted = rest.post(
        "/v1/queues/orders/messages/delete", json={"receipt_handles": [message["ReceiptHandle"]]}
    )
    assert deleted.json() == {"results": [{"index": 0}]}
    assert rest.get("/v1/queues/orders/stats").json()["in_flight"] == 0


def test_a_message_sent_on_sqs_is_received_on_rest(rest: httpx.Client, sqs: Any) -> None:
    url = sqs.create_queue(QueueName="jobs.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    sent = sqs.send_message(
        QueueUrl=url,
        MessageBody="from sqs",
        MessageGroupId="g",
        MessageDeduplicationId="d1",
        MessageAttributes={"n": {"DataType": "Number", "StringValue": "42"}},
    )
    [message] = rest.post("/v1/queues/jobs.fifo/messages/receive", json={}).json()["messages"]
    assert message["message_id"] == sent["MessageId"]
    assert message["sequence_number"] == sent["SequenceNumber"]
    assert message["group_id"] == "g"
    assert message["dedup_id"] == "d1"
    assert message["attributes"] == {"n": {"data_type": "Number", "string_value": "42"}}
    # A receipt from REST deletes through SQS.
    sqs.delete_message(QueueUrl=url, ReceiptHandle=message["receipt_handle"])
    assert rest.get("/v1/queues/jobs.fifo/stats").json() == {
        "visible": 0,
        "in_flight": 0,
        "delayed": 0,
    }
