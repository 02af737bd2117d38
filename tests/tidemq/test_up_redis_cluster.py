"""`tidemq up` on a Redis Cluster of three masters (TIDEMQ_REDIS_URL=redis+cluster://...):
what a user does with boto3 works, and the control plane's keys are spread over the
cluster's nodes (so the cluster, not one of its nodes, is what served it)."""

from __future__ import annotations

import redis

from tests.conftest import TidemqUp
from tests.redis_cluster import LocalRedisCluster


def test_a_queue_lives_its_life_on_a_redis_cluster(
    tidemq_up: TidemqUp, redis_cluster: LocalRedisCluster, redis_cluster_url: str
) -> None:
    up = tidemq_up(settings={"TIDEMQ_REDIS_URL": redis_cluster_url})
    assert up.banner["redis"] == redis_cluster_url
    sqs = up.sqs_client()
    urls = [sqs.create_queue(QueueName=f"orders-{i}")["QueueUrl"] for i in range(4)]
    url = urls[0]

    sqs.send_message(QueueUrl=url, MessageBody="first", DelaySeconds=1)
    sqs.send_message(QueueUrl=url, MessageBody="second")
    received = []
    for _ in range(10):
        reply = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=2)
        for message in reply.get("Messages", []):
            received.append(message["Body"])
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
        if len(received) == 2:
            break
    assert sorted(received) == ["first", "second"]
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert attributes["ApproximateNumberOfMessages"] == "0"
    assert attributes["ApproximateNumberOfMessagesNotVisible"] == "0"

    holding = [_key_count(server.port) for server in redis_cluster.servers]
    assert sum(1 for count in holding if count > 0) >= 2, holding

    for queue_url in urls:
        sqs.delete_queue(QueueUrl=queue_url)
    assert sqs.list_queues().get("QueueUrls", []) == []


def _key_count(port: int) -> int:
    client = redis.Redis(port=port)
    try:
        return int(client.dbsize())
    finally:
        client.close()


def test_a_topic_fans_out_to_a_fifo_queue_on_a_redis_cluster(
    tidemq_up: TidemqUp, redis_cluster_url: str
) -> None:
    up = tidemq_up(settings={"TIDEMQ_REDIS_URL": redis_cluster_url})
    sqs, sns = up.sqs_client(), up.sns_client()
    queue_url = sqs.create_queue(
        QueueName="audit.fifo",
        Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"},
    )["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])[
        "Attributes"
    ]["QueueArn"]
    topic_arn = sns.create_topic(
        Name="audit.fifo",
        Attributes={"FifoTopic": "true", "ContentBasedDeduplication": "true"},
    )["TopicArn"]
    sns.subscribe(
        TopicArn=topic_arn,
        Protocol="sqs",
        Endpoint=queue_arn,
        Attributes={"RawMessageDelivery": "true"},
    )
    for body in ("a", "b", "a"):  # the second "a" is a duplicate
        sns.publish(TopicArn=topic_arn, Message=body, MessageGroupId="g")

    received: list[str] = []
    for _ in range(10):
        reply = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=2)
        for message in reply.get("Messages", []):
            received.append(message["Body"])
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
        if len(received) >= 2:
            break
    assert received == ["a", "b"]

    sns.delete_topic(TopicArn=topic_arn)
    assert sns.list_subscriptions()["Subscriptions"] == []
    sqs.delete_queue(QueueUrl=queue_url)
