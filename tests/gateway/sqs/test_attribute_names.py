"""Queue attribute names on CreateQueue and SetQueueAttributes: spaces around a name are
taken off, as spaces around an integer's digits are; nothing else about a name is
forgiven."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.conftest import RunningGateway, start_gateway
from tests.gateway.sqs.wire import query, query_error


def test_spaces_around_names_are_taken_off(sqs: Any) -> None:
    url = sqs.create_queue(
        QueueName="spaced", Attributes={" VisibilityTimeout ": "45", "DelaySeconds\t": "2"}
    )["QueueUrl"]
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert (attributes["VisibilityTimeout"], attributes["DelaySeconds"]) == ("45", "2")
    assert not any(name != name.strip() for name in attributes)
    # The same queue, spelled without the spaces, is the same queue.
    same = {"VisibilityTimeout": "45", "DelaySeconds": "2"}
    assert sqs.create_queue(QueueName="spaced", Attributes=same)["QueueUrl"] == url
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"\nMessageRetentionPeriod": "120"})
    retention = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["MessageRetentionPeriod"])
    assert retention["Attributes"] == {"MessageRetentionPeriod": "120"}


def test_spaces_do_not_change_a_queue_type(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="std")["QueueUrl"]
    with pytest.raises(sqs.exceptions.InvalidAttributeValue):
        sqs.set_queue_attributes(QueueUrl=url, Attributes={" FifoQueue": "true"})
    fifo = sqs.create_queue(QueueName="f.fifo", Attributes={" FifoQueue ": "true"})["QueueUrl"]
    assert fifo.endswith("/f.fifo")


def test_a_name_given_twice_or_unknown_is_refused(sqs: Any) -> None:
    with pytest.raises(ClientError) as caught:
        sqs.create_queue(
            QueueName="twice", Attributes={"VisibilityTimeout": "1", " VisibilityTimeout": "2"}
        )
    assert caught.value.response["Error"]["Code"] == "InvalidAttributeName"
    with pytest.raises(ClientError) as caught:
        sqs.create_queue(QueueName="odd", Attributes={"Visibility Timeout": "1"})
    assert caught.value.response["Error"]["Code"] == "InvalidAttributeName"
    assert caught.value.response["Error"]["Message"] == "Unknown Attribute Visibility Timeout."
    assert sqs.list_queues().get("QueueUrls", []) == []


def test_spaces_are_taken_off_over_the_query_protocol(gateway: RunningGateway, sqs: Any) -> None:
    response = query(
        gateway,
        {
            "Action": "CreateQueue",
            "QueueName": "q",
            "Attribute.1.Name": " DelaySeconds ",
            "Attribute.1.Value": "7",
        },
    )
    assert response.status_code == 200, query_error(response)
    url = sqs.get_queue_url(QueueName="q")["QueueUrl"]
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["DelaySeconds"])
    assert attributes["Attributes"] == {"DelaySeconds": "7"}


@pytest.fixture
def capped_gateway(redis_url: str, tmp_path: Path) -> Iterator[RunningGateway]:
    running = start_gateway(redis_url, tmp_path / "data", max_message_bytes=256 * 1024)
    yield running
    running.stop()


def test_spaces_do_not_bypass_the_deployment_cap(capped_gateway: RunningGateway) -> None:
    sqs = capped_gateway.sqs_client()
    with pytest.raises(sqs.exceptions.InvalidAttributeValue, match="TIDEMQ_MAX_MESSAGE_BYTES"):
        sqs.create_queue(QueueName="never", Attributes={" MaximumMessageSize": "1048576"})
    url = sqs.create_queue(QueueName="ok")["QueueUrl"]
    with pytest.raises(sqs.exceptions.InvalidAttributeValue, match="TIDEMQ_MAX_MESSAGE_BYTES"):
        sqs.set_queue_attributes(QueueUrl=url, Attributes={"MaximumMessageSize ": "1048576"})
