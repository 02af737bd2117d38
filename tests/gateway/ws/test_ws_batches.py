"""Batch frames at full size over a real server: 100 messages in one `publish`, pushes of
up to 100 deliveries in one `deliver`, 100 receipt handles in one `ack`; one over the
limit is refused whole. Every frame is checked against the AsyncAPI document
(tests/gateway/ws/conftest.py)."""

from __future__ import annotations

import hashlib

from gateway.native.common import MAX_BATCH_ENTRIES
from tests.conftest import RunningGateway
from tests.gateway.ws.conftest import ConnectWs, NewToken

QUEUE = "batches"


def _counts(gateway: RunningGateway, url: str) -> tuple[int, int]:
    attributes = gateway.sqs_client().get_queue_attributes(
        QueueUrl=url,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return (
        int(attributes["ApproximateNumberOfMessages"]),
        int(attributes["ApproximateNumberOfMessagesNotVisible"]),
    )


async def test_a_full_publish_frame_a_full_push_and_a_full_ack(
    gateway: RunningGateway, connect_ws: ConnectWs, new_token: NewToken
) -> None:
    url = gateway.sqs_client().create_queue(QueueName=QUEUE)["QueueUrl"]
    total = 2 * MAX_BATCH_ENTRIES + 50
    bodies = [f"message {i}" for i in range(total)]
    async with connect_ws(await new_token()) as client:
        for start in range(0, total, MAX_BATCH_ENTRIES):
            chunk = bodies[start : start + MAX_BATCH_ENTRIES]
            answer = await client.request(
                {"op": "publish", "queue": QUEUE, "messages": [{"body": b} for b in chunk]}
            )
            assert answer["type"] == "published", answer
            results = answer["results"]
            assert [r["md5_of_body"] for r in results] == [
                hashlib.md5(b.encode()).hexdigest() for b in chunk
            ]
            assert len({r["message_id"] for r in results}) == len(chunk)
        assert _counts(gateway, url) == (total, 0)

        # Credit for all of them: pushed at most 100 a frame, the first frame full.
        subscribed = await client.request({"op": "subscribe", "queue": QUEUE, "credit": total})
        assert subscribed["type"] == "subscribed"
        frames: list[list[dict[str, object]]] = []
        while sum(len(f) for f in frames) < total:
            frame = client.pushed.pop(0) if client.pushed else await client.recv()
            assert frame["type"] == "deliver", frame
            frames.append(frame["messages"])
        assert len(frames[0]) == MAX_BATCH_ENTRIES
        assert all(1 <= len(f) <= MAX_BATCH_ENTRIES for f in frames)
        delivered = [m for f in frames for m in f]
        assert sorted(str(m["body"]) for m in delivered) == sorted(bodies)
        assert _counts(gateway, url) == (0, total)

        handles = [str(m["receipt_handle"]) for m in delivered]
        for start in range(0, total, MAX_BATCH_ENTRIES):
            chunk = handles[start : start + MAX_BATCH_ENTRIES]
            settled = await client.request({"op": "ack", "queue": QUEUE, "receipt_handles": chunk})
            assert settled["type"] == "settled", settled
            assert settled["results"] == [{"index": i} for i in range(len(chunk))]
        await client.nothing_pushed(for_s=0.3)
    assert _counts(gateway, url) == (0, 0)


async def test_a_frame_over_the_batch_limit_is_refused_whole(
    gateway: RunningGateway, connect_ws: ConnectWs, new_token: NewToken
) -> None:
    url = gateway.sqs_client().create_queue(QueueName=QUEUE)["QueueUrl"]
    too_many = MAX_BATCH_ENTRIES + 1
    async with connect_ws(await new_token()) as client:
        answer = await client.request(
            {"op": "publish", "queue": QUEUE, "messages": [{"body": "x"}] * too_many}
        )
        assert answer["type"] == "error"
        assert answer["error"]["code"] == "TooManyEntriesInBatchRequest"
        assert _counts(gateway, url) == (0, 0)

        await client.request({"op": "publish", "queue": QUEUE, "messages": [{"body": "one"}]})
        await client.request({"op": "subscribe", "queue": QUEUE, "credit": 1})
        [message] = await client.deliveries(1)
        handles = [message["receipt_handle"]] * too_many
        refused = await client.request({"op": "ack", "queue": QUEUE, "receipt_handles": handles})
        assert refused["type"] == "error"
        assert refused["error"]["code"] == "TooManyEntriesInBatchRequest"
        assert _counts(gateway, url) == (0, 1)  # still in flight: the ack did nothing
