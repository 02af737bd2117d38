"""schemathesis against a live gateway: requests generated from the OpenAPI document
(valid ones and invalid ones) never get a 5xx, and every response is declared by the
document, status, content type and body.

The document is loaded as the gateway builds it (the one it serves at /openapi.json,
checked to be the same in test_openapi.py): schemathesis's lazy loading from a fixture
does not work with this pytest, so the schema is known at collection time and the live
server's address is given to each call.

One gateway serves the whole module (real uvicorn, real Redis), authenticated with a
bearer token made for it; generated requests pile up queues and messages in it, which
only makes later examples more interesting. Valid long polls are cut to at most one second
so that the run stays short.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from gateway.rest.openapi import document
from tests.conftest import TEST_ACCOUNT_ID, RunningGateway, start_gateway
from tests.gateway.rest.conftest import DAY_MS, issue_token
from tidemq.redis_server import RedisServer

MAX_EXAMPLES = 25
EXAMPLE_QUEUE = "orders"  # the document's example queue name
EXAMPLE_TOPIC = "news"  # and topic name
# Deleting or purging the example queue (or deleting the example topic) would leave the
# operations tested after it only an empty queue, or none: those get these instead.
SPARE = {EXAMPLE_QUEUE: "orders-spare", EXAMPLE_TOPIC: "news-spare"}
EMPTYING = {
    ("DELETE", "/v1/queues/{name}"),
    ("POST", "/v1/queues/{name}/purge"),
    ("DELETE", "/v1/topics/{name}"),
}
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    negative_data_rejection,
]


@pytest.fixture(scope="module")
def live_gateway(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningGateway]:
    client = redis.Redis.from_url(redis_server.url)
    client.flushall()
    client.close()
    data_dir: Path = tmp_path_factory.mktemp("schemathesis") / "data"
    running = start_gateway(redis_server.url, data_dir)
    # The queue the document's examples name, with messages in it.
    sqs = running.sqs_client()
    for name in (EXAMPLE_QUEUE, SPARE[EXAMPLE_QUEUE]):
        url = sqs.create_queue(QueueName=name)["QueueUrl"]
        sqs.send_message_batch(
            QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": f"m{i}"} for i in range(10)]
        )
    # The topics the document's examples name, each with a pull subscription.
    sns = running.sns_client()
    for name in (EXAMPLE_TOPIC, SPARE[EXAMPLE_TOPIC]):
        arn = sns.create_topic(Name=name)["TopicArn"]
        sns.subscribe(TopicArn=arn, Protocol="pull", Endpoint="readers")
    yield running
    running.stop()


@pytest.fixture(scope="module")
def bearer_headers(live_gateway: RunningGateway) -> dict[str, str]:
    issued = asyncio.run(issue_token(live_gateway.redis_url, TEST_ACCOUNT_ID, DAY_MS))
    return {"Authorization": f"Bearer {issued.token}"}


schema = schemathesis.openapi.from_dict(document())
schema.config.generation.update(
    modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE], max_examples=MAX_EXAMPLES
)


# Its cases share one test id, and pytest-xdist runs a test id once: `make test` runs
# this after its parallel part.
@pytest.mark.alone
@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_generated_requests_get_declared_answers(
    case: Any, live_gateway: RunningGateway, bearer_headers: dict[str, str]
) -> None:
    emptying = (case.operation.method.upper(), case.operation.path) in EMPTYING
    name = (case.path_parameters or {}).get("name")
    if emptying and name in SPARE:
        case.path_parameters["name"] = SPARE[name]
    body = case.body
    if case.operation.path.endswith("/receive") and isinstance(body, dict):
        wait_s = body.get("wait_seconds")
        if isinstance(wait_s, int) and 1 < wait_s <= 20:  # valid, and long: cut short
            body["wait_seconds"] = 1
    case.call_and_validate(base_url=live_gateway.url, headers=bearer_headers, checks=CHECKS)
