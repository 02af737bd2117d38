"""docs/topics-webhooks.md: its verification example verifies what TideMQ signs, fetching
the certificate over HTTP, and its table of backoff delays is what the schedule gives."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.routing import Route

from control_plane.signing_keys import SigningKey, generate
from gateway.core.notifications import (
    Notification,
    sign,
    subscription_confirmation,
    unsubscribe_url,
)
from gateway.core.retry_schedules import BackoffFunction, RetryPolicy, retry_delay_s
from gateway.sns.certificate import ROUTE_PATH, signing_certificate
from tests.served_apps import serve

DOC = (Path(__file__).parents[3] / "docs" / "topics-webhooks.md").read_text()
TOPIC_ARN = "arn:aws:sns:us-east-1:123456789012:MyTopic"


@pytest.fixture(scope="module")
def key() -> SigningKey:
    return generate()


@pytest.fixture(scope="module")
def url(key: SigningKey) -> Iterator[str]:
    app = Starlette(routes=[Route(ROUTE_PATH, signing_certificate)])
    app.state.signing_key = key
    with serve(app) as base_url:
        yield base_url


@pytest.fixture(scope="module")
def verify_sns_message(url: str) -> Callable[[bytes], bool]:
    [example] = re.findall(r"```python\n(.*?)```", DOC, re.DOTALL)
    assert 'TIDEMQ = "http://127.0.0.1:9324"' in example
    namespace: dict[str, Any] = {}
    exec(example.replace("http://127.0.0.1:9324", url), namespace)  # the doc's own code
    function: Callable[[bytes], bool] = namespace["verify_sns_message"]
    return function


@pytest.mark.parametrize("version", ["1", "2"])
def test_the_docs_example_verifies_what_tidemq_signs(
    key: SigningKey, url: str, verify_sns_message: Callable[[bytes], bool], version: str
) -> None:
    notification = Notification(
        message_id="22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324",
        topic_arn=TOPIC_ARN,
        message='{"order": 1}\nwith a line break',
        timestamp="2012-05-02T00:54:06.655Z",
        subject="My First Message",
    )
    body = notification.envelope(
        unsubscribe_url(url, f"{TOPIC_ARN}:sub"),
        sign(notification.string_to_sign(), key, version, url),
    )
    assert verify_sns_message(body)
    tampered = json.loads(body) | {"Message": "something else"}
    assert not verify_sns_message(json.dumps(tampered).encode())

    confirmation = subscription_confirmation(
        message_id="165545c9-2a5c-472c-8df2-7ff2be2b3b1b",
        token="ab12",
        topic_arn=TOPIC_ARN,
        timestamp="2012-04-26T20:45:04.751Z",
        base_url=url,
    )
    body = confirmation.envelope(sign(confirmation.string_to_sign(), key, version, url))
    assert verify_sns_message(body)


def test_the_docs_example_refuses_a_certificate_from_elsewhere(
    key: SigningKey, verify_sns_message: Callable[[bytes], bool]
) -> None:
    notification = Notification("m", TOPIC_ARN, "hello", "2012-05-02T00:54:06.655Z")
    body = notification.envelope(
        "u", sign(notification.string_to_sign(), key, "2", "http://attacker.example")
    )
    assert not verify_sns_message(body)


def test_the_docs_table_of_backoff_delays_is_the_schedules() -> None:
    rows = re.findall(r"^\| (linear|arithmetic|geometric|exponential) \|.*\| ([\d., ]+)", DOC, re.M)
    assert len(rows) == 4
    for name, delays in rows:
        policy = RetryPolicy(max_delay_s=40, backoff_function=BackoffFunction(name))
        schedule = [retry_delay_s(policy, attempt) for attempt in (1, 2, 3)]
        assert [f"{delay:g}" for delay in (round(d or 0, 1) for d in schedule)] == [
            value.strip() for value in delays.split(",")
        ]
