"""botocore's SQS and SNS models: read once, every action resolved, before any request."""

from __future__ import annotations

import botocore.session

from gateway import aws_models
from gateway.sns import query_protocol as sns_query
from gateway.sqs import query_protocol as sqs_query


def test_every_action_comes_from_one_reading_of_its_service() -> None:
    aws_models.load()
    for service in aws_models.SERVICES:
        operations = aws_models.operations(service)
        expected = botocore.session.get_session().get_service_model(service).operation_names
        assert set(operations) == set(expected)
        # One model object per service: the actions were not read one session each.
        assert len({id(op.service_model) for op in operations.values()}) == 1
        assert aws_models.operations(service) is operations


def test_an_unknown_action_has_no_model() -> None:
    assert aws_models.operation("sqs", "Publish") is None
    assert aws_models.operation("sns", "SendMessage") is None
    assert aws_models.operation("sqs", "SendMessage") is not None


def test_requests_of_new_actions_read_no_model_once_loaded() -> None:
    aws_models.load()
    reads = aws_models.operations.cache_info().misses
    sqs_query.parse("ListQueues", [("QueueNamePrefix", "a")])
    sqs_query.parse("GetQueueUrl", [("QueueName", "a")])
    sns_query.parse("ListTopics", [])
    sns_query.parse("GetTopicAttributes", [("TopicArn", "arn:aws:sns:us-east-1:1:t")])
    assert aws_models.operations.cache_info().misses == reads
