"""The harness itself: the servers the fixtures start are real and isolated."""

from __future__ import annotations

import boto3
import redis

from tests.redis_cluster import SLOTS, LocalRedisCluster, key_count
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


def test_redis_runs_with_the_append_only_file(redis_server: RedisServer) -> None:
    client = redis.Redis.from_url(redis_server.url)
    try:
        assert client.config_get("appendonly") == {"appendonly": "yes"}
        assert client.config_get("appendfsync") == {"appendfsync": "always"}
    finally:
        client.close()


def test_each_test_starts_from_an_empty_redis(redis_url: str) -> None:
    assert key_count(redis_url) == 0


def test_the_redis_cluster_has_three_masters_that_serve_every_slot(
    redis_cluster: LocalRedisCluster, redis_cluster_url: str
) -> None:
    client = redis.RedisCluster(host="127.0.0.1", port=redis_cluster.servers[0].port)
    try:
        masters = client.get_primaries()
        assert sorted(node.port for node in masters) == sorted(
            server.port for server in redis_cluster.servers
        )
        covered = sum(end - start + 1 for start, end in client.cluster_slots())
        assert covered == SLOTS
        for i in range(30):  # keys of many slots land on every master
            client.set(f"harness:{i}", i)
        assert all(client.dbsize(target_nodes=node) > 0 for node in masters)
    finally:
        client.close()
    assert key_count(redis_cluster_url) == 30
