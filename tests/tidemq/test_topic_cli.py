"""`tidemq topic seek` against a running gateway: by offset, by time, and its refusals."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from tests.conftest import (
    TEST_ACCESS_KEY_ID,
    TEST_ACCOUNT_ID,
    TEST_SECRET_ACCESS_KEY,
    RunningGateway,
)
from tests.gateway.rest.conftest import DAY_MS, issue_token, rest_client
from tidemq.cli import main


@pytest.fixture
def rest(gateway: RunningGateway, monkeypatch: pytest.MonkeyPatch) -> Iterator[httpx.Client]:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", TEST_ACCESS_KEY_ID)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", TEST_SECRET_ACCESS_KEY)
    token = asyncio.run(issue_token(gateway.redis_url, TEST_ACCOUNT_ID, DAY_MS)).token
    with rest_client(gateway.url, token) as client:
        yield client


def _bodies(rest: httpx.Client, subscription: dict[str, Any]) -> list[str]:
    response = rest.post(
        f"/v1/subscriptions/{subscription['id']}/receive", json={"max_messages": 100}
    )
    return [m["body"] for m in response.json()["messages"]]


def test_seek_by_offset_and_by_time(
    rest: httpx.Client, gateway: RunningGateway, capsys: pytest.CaptureFixture[str]
) -> None:
    rest.post("/v1/topics", json={"name": "news"})
    subscription = rest.post(
        "/v1/topics/news/subscriptions", json={"protocol": "pull", "endpoint": "replay"}
    ).json()
    messages = [{"body": f"m{i}"} for i in range(5)]
    rest.post("/v1/topics/news/messages/batch", json={"messages": messages})
    assert _bodies(rest, subscription) == ["m0", "m1", "m2", "m3", "m4"]

    seek = ["topic", "seek", "news", subscription["id"], "--endpoint", gateway.url]
    assert main([*seek, "--offset", "3"]) == 0
    assert capsys.readouterr().out == (
        f"Subscription {subscription['id']} of topic news now delivers from offset 3 "
        "(the log ends at 5).\n"
    )
    assert _bodies(rest, subscription) == ["m3", "m4"]
    # By time, with the subscription named by its ARN: everything was published after 2001.
    by_arn = ["topic", "seek", "news", subscription["arn"], "--endpoint", gateway.url]
    assert main([*by_arn, "--time", "2001-09-09T01:46:40Z"]) == 0
    assert "from offset 0 " in capsys.readouterr().out
    assert _bodies(rest, subscription) == ["m0", "m1", "m2", "m3", "m4"]
    later = datetime.now(UTC).replace(year=datetime.now(UTC).year + 1).isoformat()
    assert main([*seek, "--time", later]) == 0
    assert "from offset 5 " in capsys.readouterr().out


def test_refusals_say_why(
    rest: httpx.Client, gateway: RunningGateway, capsys: pytest.CaptureFixture[str]
) -> None:
    rest.post("/v1/topics", json={"name": "news"})
    rest.post("/v1/topics", json={"name": "other"})
    subscription = rest.post(
        "/v1/topics/news/subscriptions", json={"protocol": "pull", "endpoint": "replay"}
    ).json()
    endpoint = ["--endpoint", gateway.url]
    assert main(["topic", "seek", "other", subscription["id"], "--offset", "0", *endpoint]) == 1
    assert "is one of topic news, not of other" in capsys.readouterr().err
    assert main(["topic", "seek", "news", subscription["id"], "--offset", "9", *endpoint]) == 1
    assert "InvalidParameterValue" in capsys.readouterr().err
    assert main(["topic", "seek", "news", "nope", "--offset", "0", *endpoint]) == 1
    assert "NotFound" in capsys.readouterr().err
    for bad in (["--offset", "-1"], ["--time", "yesterday"], []):
        with pytest.raises(SystemExit) as exited:
            main(["topic", "seek", "news", subscription["id"], *bad, *endpoint])
        assert exited.value.code == 2
    capsys.readouterr()
    closed = ["--endpoint", "http://127.0.0.1:1"]
    assert main(["topic", "seek", "news", subscription["id"], "--offset", "0", *closed]) == 2
    assert "is `tidemq up` running?" in capsys.readouterr().err
