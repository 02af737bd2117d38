"""The harness itself: the servers the fixtures start are real and isolated."""

from __future__ import annotations

import boto3
import redis

from tidemq.redis_server import RedisServer


def test_s3_endpoint_is_a_real_s3_server(s3_endpoint: str) -> None:
    s3 = boto3.client(
        "s3",
        endpoint_url=s3_endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    s3.create_bucket(Bucket="harness")
    s3.put_object(Bucket="harness", Key="a/b.seg", Body=b"0123456789")
    ranged = s3.get_object(Bucket="harness", Key="a/b.seg", Range="bytes=2-5")
    assert ranged["Body"].read() == b"2345"


def test_redis_runs_with_the_append_only_file(redis_server: RedisServer, redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    try:
        assert client.config_get("appendonly") == {"appendonly": "yes"}
        assert client.config_get("appendfsync") == {"appendfsync": "always"}
        assert client.dbsize() == 0  # each test starts from an empty database
    finally:
        client.close()
