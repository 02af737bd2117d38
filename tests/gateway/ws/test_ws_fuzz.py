"""Fuzzing the WebSocket API on one real connection: frames of every shape hypothesis can
make (the protocol's own operations with any fields and values, any JSON, any text, any
bytes), and after each, a frame whose answer is known. Whatever was sent:

- it gets exactly one answer, in order: an `error` frame, or the answer its operation
  has, carrying the frame's `id`;
- every frame the server sends is one the AsyncAPI document describes;
- the connection stays open: the known frame after it is answered.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.sync.client import ClientConnection, connect

from gateway.ws.frames import OPS
from tests.conftest import TEST_ACCOUNT_ID, RunningGateway
from tests.gateway.rest.conftest import DAY_MS, issue_token
from tests.gateway.ws.conftest import FRAME_TIMEOUT_S, check_against_document

ANSWERS = {
    "subscribe": "subscribed",
    "credit": "credit_set",
    "unsubscribe": "unsubscribed",
    "ack": "settled",
    "nack": "settled",
    "extend": "settled",
    "publish": "published",
}
QUEUE = "fuzz"
TEXT = st.one_of(
    st.sampled_from(["", "fuzz", "nope", "\x00", "\ufffe", "\u00b2", "String", "Number", "1"]),
    st.text(max_size=10),
)
NUMBER = st.one_of(st.integers(-2, 20), st.integers(), st.floats(), TEXT, st.booleans())
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
ATTRIBUTE = st.fixed_dictionaries(
    {},
    optional={
        "data_type": st.sampled_from(["String", "Number", "Binary", "Nope", "String.x"]) | TEXT,
        "string_value": TEXT | NUMBER,
        "binary_value": st.sampled_from(["AAEC", "not base64", ""]) | TEXT,
    },
)
MESSAGE = st.fixed_dictionaries(
    {"body": TEXT},
    optional={
        "attributes": st.dictionaries(TEXT, ATTRIBUTE | JSON, max_size=3),
        "delay_seconds": NUMBER,
        "delay_level": NUMBER,
        "group_id": TEXT,
        "dedup_id": TEXT,
        "extra": JSON,
    },
)
OPERATION = st.fixed_dictionaries(
    {"op": st.sampled_from([*OPS, "nope", ""]) | JSON},
    optional={
        "id": st.one_of(TEXT, st.text(min_size=129, max_size=130), JSON),
        "queue": st.sampled_from([QUEUE, "nope", ""]) | JSON,
        "credit": NUMBER,
        "visibility_timeout": NUMBER,
        "delay_seconds": NUMBER,
        "receipt_handles": st.lists(TEXT, max_size=11) | JSON,
        "messages": st.lists(MESSAGE | JSON, max_size=11) | JSON,
        "unknown": JSON,
    },
)
# Frames of the right shape, with values still drawn to break things: they get past the
# decoder, to the broker's validation and the subscriptions.
ATTRIBUTES = st.dictionaries(
    st.sampled_from(["a", "b.c", "", "AWS.x", "\x00"]) | TEXT,
    st.fixed_dictionaries(
        {"data_type": st.sampled_from(["String", "Number", "Binary", "String.x"])},
        optional={"string_value": TEXT, "binary_value": st.sampled_from(["AAEC", "!"])},
    ),
    max_size=3,
)
SHAPED_MESSAGE = st.fixed_dictionaries(
    {"body": TEXT},
    optional={
        "attributes": ATTRIBUTES,
        "delay_seconds": st.integers(0, 900),
        "delay_level": st.integers(-1, 19),
    },
)
RECEIPTS = st.lists(TEXT, min_size=1, max_size=10)
SHAPED = st.one_of(
    st.fixed_dictionaries(
        {"op": st.just("subscribe"), "queue": st.just(QUEUE)},
        optional={"credit": st.integers(0, 1000), "visibility_timeout": st.integers(0, 43200)},
    ),
    st.fixed_dictionaries(
        {"op": st.just("credit"), "queue": st.just(QUEUE), "credit": st.integers(0, 1000)}
    ),
    st.fixed_dictionaries({"op": st.just("unsubscribe"), "queue": st.just(QUEUE)}),
    st.fixed_dictionaries(
        {
            "op": st.sampled_from(["ack", "nack"]),
            "queue": st.just(QUEUE),
            "receipt_handles": RECEIPTS,
        }
    ),
    st.fixed_dictionaries(
        {
            "op": st.just("extend"),
            "queue": st.just(QUEUE),
            "receipt_handles": RECEIPTS,
            "visibility_timeout": st.integers(0, 43200),
        }
    ),
    st.fixed_dictionaries(
        {
            "op": st.just("publish"),
            "queue": st.just(QUEUE),
            "messages": st.lists(SHAPED_MESSAGE, min_size=1, max_size=10),
        }
    ),
).flatmap(lambda frame: st.just(frame) | TEXT.map(lambda request_id: {**frame, "id": request_id}))
ANYTHING = st.one_of(
    OPERATION.map(json.dumps),
    JSON.map(json.dumps),
    st.text(max_size=40),
    st.binary(max_size=40),
    OPERATION.map(lambda frame: json.dumps(frame).encode()),  # JSON in a binary frame
)
# Half of the frames well shaped (hypothesis's `one_of` does not weigh its branches).
FRAMES = st.booleans().flatmap(lambda shaped: SHAPED.map(json.dumps) if shaped else ANYTHING)


class Connection:
    """The connection under fuzz, and the frames it got that answer nothing (pushes)."""

    def __init__(self, websocket: ClientConnection) -> None:
        self.websocket = websocket
        self._sentinels = itertools.count()

    def answers_to(self, frame: str | bytes) -> list[dict[str, Any]]:
        """Sends `frame`, then a frame whose answer is known; the answers that came
        before that one, pushed deliveries left out."""
        sentinel = f"sentinel-{next(self._sentinels)}"
        self.websocket.send(frame)
        known = {"op": "credit", "queue": "none", "credit": 1, "id": sentinel}
        self.websocket.send(json.dumps(known))
        answers = []
        while True:
            received = json.loads(self.websocket.recv(timeout=FRAME_TIMEOUT_S))
            check_against_document(received)
            if received.get("id") == sentinel:
                assert received["error"]["code"] == "NotSubscribed", received
                return answers
            if received["type"] != "deliver" and "reason" not in received:
                answers.append(received)


@pytest.fixture
def connection(gateway: RunningGateway) -> Iterator[Connection]:
    sqs = gateway.sqs_client()
    url = sqs.create_queue(QueueName=QUEUE)["QueueUrl"]
    sqs.send_message_batch(
        QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": f"m{i}"} for i in range(5)]
    )
    ws_url = gateway.url.replace("http://", "ws://") + "/v1/ws"
    token = asyncio.run(issue_token(gateway.redis_url, TEST_ACCOUNT_ID, DAY_MS)).token
    headers = {"Authorization": f"Bearer {token}"}
    with connect(ws_url, additional_headers=headers, max_size=None) as websocket:
        yield Connection(websocket)


@settings(
    max_examples=300,
    deadline=None,
    # One connection for every example is the point: it must survive them all.
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(frame=FRAMES)
def test_every_frame_gets_one_answer_and_the_connection_stays(
    connection: Connection, frame: str | bytes
) -> None:
    [answer] = connection.answers_to(frame)
    parsed = _json_object(frame)
    op = parsed.get("op") if parsed is not None else None
    if answer["type"] != "error":
        assert op in ANSWERS, (frame, answer)
        assert answer["type"] == ANSWERS[op], (frame, answer)
    sent_id = parsed.get("id") if parsed is not None else None
    if isinstance(sent_id, str) and len(sent_id) <= 128:
        assert answer.get("id") == sent_id, (frame, answer)


def _json_object(frame: str | bytes) -> dict[str, Any] | None:
    """The frame as the server reads it, if it is a JSON object (strict JSON: no NaN)."""
    try:
        parsed = orjson.loads(frame)
    except orjson.JSONDecodeError:
        return None
    return parsed if isinstance(parsed, dict) else None
