"""Replay: seeking a pull subscription to an offset or a time, on the REST API, against
real gateways whose message clock the test moves; also once the topic's first segments
were tiered to the archive and dropped from local disk."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from control_plane.clock import ManualClock
from tests.conftest import MotoProcess, RunningGateway, start_gateway
from tests.gateway.rest.conftest import DAY_MS, issue_token, rest_client
from tests.storage_nodes.archive.conftest import moto_options, raw_client
from tidemq.stack import ArchiveOptions

SECOND_MS = 1000
# Small segments, and nothing kept locally once tiered.
TIER_FAST = ArchiveOptions(
    segment_bytes=2048, segment_ms=200, local_retention_bytes=0, local_retention_ms=0
)


class Clocked:
    """A gateway with a hand-moved message clock, a REST client, and a pull subscription
    to the topic `news`."""

    def __init__(self, gateway: RunningGateway, clock: ManualClock, client: httpx.Client) -> None:
        self.gateway, self.clock, self.rest = gateway, clock, client
        client.post("/v1/topics", json={"name": "news"})
        self.subscription: dict[str, Any] = client.post(
            "/v1/topics/news/subscriptions", json={"protocol": "pull", "endpoint": "replay"}
        ).json()
        self.path = f"/v1/subscriptions/{self.subscription['id']}"

    def publish_second(self, *bodies: str) -> int:
        """Publishes `bodies` now, then moves the clock on a second; returns when."""
        now_ms = self.clock.now_ms()
        messages = [{"body": body} for body in bodies]
        self.rest.post("/v1/topics/news/messages/batch", json={"messages": messages})
        self.clock.advance(SECOND_MS)
        return now_ms

    def receive(self, **request: int) -> list[dict[str, Any]]:
        # No waiting: a long poll's deadline is on the message clock, which stands still.
        response = self.rest.post(self.path + "/receive", json={"max_messages": 100, **request})
        assert response.status_code == 200, response.text
        messages: list[dict[str, Any]] = response.json()["messages"]
        return messages

    def seek(self, **request: int) -> httpx.Response:
        return self.rest.post(self.path + "/seek", json=request)


def _clocked(redis_url: str, data_dir: Path, archive: ArchiveOptions | None) -> Iterator[Clocked]:
    clock = ManualClock(start_ms=int(time.time() * 1000))
    running = start_gateway(redis_url, data_dir, clock=clock, archive=archive)
    token = _token(running)
    with rest_client(running.url, token) as client:
        yield Clocked(running, clock, client)
    running.stop()


def _token(gateway: RunningGateway) -> str:
    return asyncio.run(issue_token(gateway.redis_url, "123456789012", DAY_MS)).token


@pytest.fixture
def clocked(redis_url: str, tmp_path: Path) -> Iterator[Clocked]:
    yield from _clocked(redis_url, tmp_path / "data", None)


@pytest.fixture(params=["local", "s3"])
def tiered(request: pytest.FixtureRequest, redis_url: str, tmp_path: Path) -> Iterator[Clocked]:
    """Tiering fast, to a local directory or to moto's S3 in its own process."""
    options = TIER_FAST
    if request.param == "s3":
        server: MotoProcess = request.getfixturevalue("s3_server")
        bucket = f"seek-{os.urandom(6).hex()}"
        raw_client(moto_options(server)).create_bucket(Bucket=bucket)
        options = dataclasses.replace(options, url=f"s3://{bucket}/tidemq", s3=moto_options(server))
    yield from _clocked(redis_url, tmp_path / "data", options)


def _bodies(messages: list[dict[str, Any]]) -> list[str]:
    return [m["body"] for m in messages]


def test_seek_to_an_offset_delivers_from_there_again(clocked: Clocked) -> None:
    clocked.publish_second("a", "b", "c", "d")
    first = clocked.receive()
    assert _bodies(first) == ["a", "b", "c", "d"]
    delete = clocked.rest.post(
        clocked.path + "/delete", json={"receipt_handles": [first[0]["receipt_handle"]]}
    )
    assert delete.status_code == 200
    sought = clocked.seek(offset=1)
    assert sought.json() == {"offset": 1, "end_offset": 4}
    again = clocked.receive()
    assert _bodies(again) == ["b", "c", "d"]
    assert all(m["receive_count"] == 1 for m in again)
    # The receipts of before the seek are stale: deleting succeeds and deletes nothing,
    # changing visibility fails as for any message not in flight under that receipt.
    old = [m["receipt_handle"] for m in first[1:]]
    deleted = clocked.rest.post(clocked.path + "/delete", json={"receipt_handles": old})
    assert deleted.json()["results"] == [{"index": 0}, {"index": 1}, {"index": 2}]
    changed = clocked.rest.post(
        clocked.path + "/visibility",
        json={"entries": [{"receipt_handle": old[0], "visibility_timeout": 0}]},
    ).json()["results"]
    assert changed[0]["error"]["code"] == "MessageNotInflight"
    stats = clocked.rest.get(clocked.path).json()["stats"]
    assert stats == {"visible": 0, "in_flight": 3}
    # Forward past everything: only what is published next.
    assert clocked.seek(offset=4).json()["offset"] == 4
    clocked.publish_second("e")
    assert _bodies(clocked.receive()) == ["e"]


def test_seek_to_a_time_finds_the_first_message_published_at_or_after_it(
    clocked: Clocked,
) -> None:
    times = [clocked.publish_second(f"s{i}a", f"s{i}b") for i in range(4)]
    for when, expected in (
        (times[0] - 1, 0),
        (times[1], 2),
        (times[1] + 1, 4),
        (times[3], 6),
        (times[3] + SECOND_MS, 8),
    ):
        answer = clocked.seek(timestamp=when)
        assert answer.json() == {"offset": expected, "end_offset": 8}, when
    clocked.seek(timestamp=times[2])
    assert _bodies(clocked.receive()) == ["s2a", "s2b", "s3a", "s3b"]


def test_bad_seeks_are_400_and_change_nothing(clocked: Clocked) -> None:
    clocked.publish_second("a", "b")
    for request in ({}, {"offset": 0, "timestamp": 0}, {"offset": 3}, {"offset": -1}):
        response = clocked.seek(**request)
        assert response.status_code == 400, request
        assert response.json()["error"]["code"] == "InvalidParameterValue", request
    malformed = clocked.rest.post(clocked.path + "/seek", json={"offset": "0"})
    assert malformed.status_code == 400
    assert _bodies(clocked.receive()) == ["a", "b"]


def test_seek_to_a_time_reads_the_segments_tiered_away(tiered: Clocked) -> None:
    times = [tiered.publish_second(*(f"m{i}-{j}" + "x" * 100 for j in range(10))) for i in range(8)]
    stream_dir = _stream_dir(tiered.gateway)
    deadline = time.monotonic() + 20
    while _local_start(stream_dir) < 40:  # the first four seconds are in the archive only
        assert time.monotonic() < deadline, sorted(stream_dir.glob("0/*.log"))
        time.sleep(0.05)
    answer = tiered.seek(timestamp=times[2] + 1)
    assert answer.json() == {"offset": 30, "end_offset": 80}
    replayed = tiered.receive()
    expected = [f"m{i}-{j}" for i in range(3, 8) for j in range(10)]
    assert [m["body"].rstrip("x") for m in replayed] == expected
    assert tiered.seek(timestamp=times[0]).json()["offset"] == 0
    assert _bodies(tiered.receive(max_messages=1))[0].startswith("m0-0")


def _stream_dir(gateway: RunningGateway) -> Path:
    [stream] = [p for p in (gateway.data_dir / "node" / "streams").iterdir() if p.is_dir()]
    return stream


def _local_start(stream_dir: Path) -> int:
    logs = sorted(stream_dir.glob("0/*.log"))
    return int(logs[0].stem) if logs else 0
