"""Server-side encryption attributes: KmsMasterKeyId, KmsDataKeyReusePeriodSeconds and
SqsManagedSseEnabled are taken, checked, kept and reported as SQS does."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

SSE = ["KmsMasterKeyId", "KmsDataKeyReusePeriodSeconds", "SqsManagedSseEnabled"]


def _sse(sqs: Any, url: str) -> dict[str, str]:
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=SSE)["Attributes"]
    return dict(attributes)


def _error(caught: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    error = caught.value.response["Error"]
    return error["Code"], error["Message"]


def test_a_new_queue_has_sqs_managed_encryption(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="plain")["QueueUrl"]
    everything = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert everything["SqsManagedSseEnabled"] == "true"
    assert everything["KmsDataKeyReusePeriodSeconds"] == "300"
    assert "KmsMasterKeyId" not in everything
    assert _sse(sqs, url) == {"KmsDataKeyReusePeriodSeconds": "300", "SqsManagedSseEnabled": "true"}


def test_a_kms_key_is_kept_and_turns_sse_sqs_off(sqs: Any) -> None:
    url = sqs.create_queue(
        QueueName="kms",
        Attributes={"KmsMasterKeyId": "alias/aws/sqs", "KmsDataKeyReusePeriodSeconds": "600"},
    )["QueueUrl"]
    assert _sse(sqs, url) == {
        "KmsMasterKeyId": "alias/aws/sqs",
        "KmsDataKeyReusePeriodSeconds": "600",
        "SqsManagedSseEnabled": "false",
    }
    everything = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert everything["KmsMasterKeyId"] == "alias/aws/sqs"
    # The same request again is the same queue.
    again = sqs.create_queue(
        QueueName="kms",
        Attributes={"KmsMasterKeyId": "alias/aws/sqs", "KmsDataKeyReusePeriodSeconds": "600"},
    )
    assert again["QueueUrl"] == url


def test_switching_between_sse_kms_and_sse_sqs(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="switch")["QueueUrl"]
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"KmsMasterKeyId": "alias/mine"})
    assert _sse(sqs, url)["SqsManagedSseEnabled"] == "false"
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"KmsDataKeyReusePeriodSeconds": "86400"})
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"SqsManagedSseEnabled": "true"})
    assert _sse(sqs, url) == {"KmsDataKeyReusePeriodSeconds": "300", "SqsManagedSseEnabled": "true"}
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"SqsManagedSseEnabled": "false"})
    assert _sse(sqs, url)["SqsManagedSseEnabled"] == "false"
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"KmsMasterKeyId": "alias/mine"})
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"KmsMasterKeyId": ""})
    assert _sse(sqs, url) == {"KmsDataKeyReusePeriodSeconds": "300", "SqsManagedSseEnabled": "true"}


def test_both_kinds_of_encryption_at_once_are_refused(sqs: Any) -> None:
    both = {"KmsMasterKeyId": "alias/aws/sqs", "SqsManagedSseEnabled": "true"}
    with pytest.raises(ClientError) as caught:
        sqs.create_queue(QueueName="both", Attributes=both)
    assert _error(caught) == (
        "InvalidAttributeValue",
        "You can use one type of server-side encryption (SSE) at one time. You can either "
        "enable KMS SSE or SQS SSE.",
    )
    assert sqs.list_queues().get("QueueUrls", []) == []
    url = sqs.create_queue(QueueName="one")["QueueUrl"]
    with pytest.raises(ClientError) as caught:
        sqs.set_queue_attributes(QueueUrl=url, Attributes=both)
    assert _error(caught)[0] == "InvalidAttributeValue"
    assert _sse(sqs, url)["SqsManagedSseEnabled"] == "true"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("KmsDataKeyReusePeriodSeconds", "59"),
        ("KmsDataKeyReusePeriodSeconds", "86401"),
        ("KmsDataKeyReusePeriodSeconds", "five"),
        ("SqsManagedSseEnabled", "yes"),
    ],
)
def test_encryption_values_out_of_range_are_refused(sqs: Any, name: str, value: str) -> None:
    with pytest.raises(ClientError) as caught:
        sqs.create_queue(QueueName="bad", Attributes={name: value})
    assert _error(caught) == ("InvalidAttributeValue", f"Invalid value for the parameter {name}.")
    url = sqs.create_queue(QueueName="good")["QueueUrl"]
    with pytest.raises(ClientError) as caught:
        sqs.set_queue_attributes(QueueUrl=url, Attributes={name: value})
    assert _error(caught) == ("InvalidAttributeValue", f"Invalid value for the parameter {name}.")


def test_the_default_spelled_out_is_the_same_queue(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="same", Attributes={"SqsManagedSseEnabled": "true"})[
        "QueueUrl"
    ]
    assert sqs.create_queue(QueueName="same")["QueueUrl"] == url
    with pytest.raises(sqs.exceptions.QueueNameExists):
        sqs.create_queue(QueueName="same", Attributes={"SqsManagedSseEnabled": "false"})
