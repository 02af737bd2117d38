"""Topics on the WebSocket API: publish to a topic, subscribe to a pull subscription with
credit (pushed deliveries, ack / nack / extend), seek, and the errors of frames that name
what they consume; every frame checked against the AsyncAPI document."""

from __future__ import annotations

import json
import uuid
from typing import Any

from tests.conftest import RunningGateway
from tests.gateway.ws.conftest import ConnectWs, NewToken, WsClient


def _topic_with_pull(gateway: RunningGateway, **attributes: str) -> tuple[str, str]:
    """A topic `news` with a pull subscription; (its ARN, the subscription's id)."""
    sns = gateway.sns_client()
    topic = sns.create_topic(Name="news")["TopicArn"]
    arn = sns.subscribe(TopicArn=topic, Protocol="pull", Endpoint="readers", Attributes=attributes)[
        "SubscriptionArn"
    ]
    return topic, arn.rsplit(":", 1)[1]


async def _publish(client: WsClient, *bodies: str, **fields: Any) -> dict[str, Any]:
    messages = [{"body": body, **fields} for body in bodies]
    answer = await client.request({"op": "publish", "topic": "news", "messages": messages})
    assert answer["type"] == "published", answer
    assert answer["topic"] == "news"
    return answer


async def test_publish_to_a_topic_and_have_a_pull_subscription_pushed_within_credit(
    gateway: RunningGateway, connect_ws: ConnectWs, new_token: NewToken
) -> None:
    _, subscription = _topic_with_pull(gateway)
    async with connect_ws(await new_token()) as client:
        answer = await client.request(
            {"op": "subscribe", "subscription": subscription, "credit": 2}
        )
        assert answer == {
            "type": "subscribed",
            "id": answer["id"],
            "subscription": subscription,
            "credit": 2,
        }
        published = await _publish(client, "m0", "m1", "m2", subject="hello")
        assert all("message_id" in r for r in published["results"])
        first = await client.deliveries(2)
        assert [m["body"] for m in first] == ["m0", "m1"]
        assert first[0]["system_attributes"] == {"Subject": "hello"}
        await client.nothing_pushed(for_s=0.3)

        handles = [m["receipt_handle"] for m in first]
        acked = await client.request(
            {"op": "ack", "subscription": subscription, "receipt_handles": handles[:1]}
        )
        assert (acked["type"], acked["subscription"], acked["results"]) == (
            "settled",
            subscription,
            [{"index": 0}],
        )
        [third] = await client.deliveries(1)
        assert third["body"] == "m2"
        extended = await client.request(
            {
                "op": "extend",
                "subscription": subscription,
                "receipt_handles": [third["receipt_handle"]],
                "visibility_timeout": 60,
            }
        )
        assert extended["results"] == [{"index": 0}]
        nacked = await client.request(
            {"op": "nack", "subscription": subscription, "receipt_handles": handles[1:]}
        )
        assert nacked["results"] == [{"index": 0}]
        [again] = await client.deliveries(1)
        assert (again["body"], again["receive_count"]) == ("m1", 2)

        stopped = await client.request({"op": "unsubscribe", "subscription": subscription})
        assert stopped["type"] == "unsubscribed"


async def test_seek_pushes_again_from_the_new_position(
    gateway: RunningGateway, connect_ws: ConnectWs, new_token: NewToken
) -> None:
    _, subscription = _topic_with_pull(gateway, FilterPolicy=json.dumps({"keep": ["yes"]}))
    keep = {"attributes": {"keep": {"data_type": "String", "string_value": "yes"}}}
    async with connect_ws(await new_token()) as client:
        await _publish(client, "a", "b", **keep)
        await _publish(client, "dropped")  # the filter policy does not match it
        await _publish(client, "c", **keep)
        await client.request({"op": "subscribe", "subscription": subscription, "credit": 3})
        assert [m["body"] for m in await client.deliveries(3)] == ["a", "b", "c"]
        # Credit is full; the seek forgets those three, so three come again.
        sought = await client.request({"op": "seek", "subscription": subscription, "offset": 1})
        assert sought == {
            "type": "cursor_set",
            "id": sought["id"],
            "subscription": subscription,
            "offset": 1,
            "end_offset": 4,
        }
        again = await client.deliveries(2)
        assert [(m["body"], m["receive_count"]) for m in again] == [("b", 1), ("c", 1)]
        await client.nothing_pushed(for_s=0.3)
        by_time = await client.request({"op": "seek", "subscription": subscription, "timestamp": 0})
        assert by_time["offset"] == 0
        assert [m["body"] for m in await client.deliveries(1)] == ["a"]


async def test_frames_name_one_thing_that_is_there(
    gateway: RunningGateway, connect_ws: ConnectWs, new_token: NewToken
) -> None:
    gateway.sqs_client().create_queue(QueueName="orders")
    queue_arn = "arn:aws:sqs:us-east-1:123456789012:orders"
    topic, pulled = _topic_with_pull(gateway)
    pushed = gateway.sns_client().subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn)
    pushed_id = pushed["SubscriptionArn"].rsplit(":", 1)[1]
    unknown = str(uuid.uuid4())
    async with connect_ws(await new_token()) as client:
        cases: list[tuple[dict[str, Any], str]] = [
            ({"op": "subscribe"}, "MissingParameter"),
            (
                {"op": "subscribe", "queue": "orders", "subscription": pulled},
                "InvalidParameterValue",
            ),
            ({"op": "subscribe", "subscription": unknown}, "NotFound"),
            ({"op": "subscribe", "subscription": pushed_id}, "InvalidParameterValue"),
            ({"op": "credit", "subscription": pulled, "credit": 1}, "NotSubscribed"),
            ({"op": "seek", "subscription": pulled}, "InvalidParameterValue"),
            ({"op": "seek", "subscription": pulled, "offset": 9}, "InvalidParameterValue"),
            ({"op": "seek", "subscription": pushed_id, "offset": 0}, "InvalidParameterValue"),
            ({"op": "seek", "subscription": unknown, "offset": 0}, "NotFound"),
            ({"op": "seek", "subscription": "nope", "offset": 0}, "InvalidParameterValue"),
            (
                {"op": "publish", "topic": "nope", "messages": [{"body": "x"}]},
                "NotFound",
            ),
            (
                {"op": "publish", "queue": "orders", "topic": "news", "messages": []},
                "EmptyBatchRequest",
            ),
            (
                {"op": "publish", "queue": "orders", "topic": "news", "messages": [{}]},
                "MissingParameter",
            ),
            (
                {"op": "publish", "queue": "orders", "topic": "news", "messages": [{"body": "x"}]},
                "InvalidParameterValue",
            ),
            (
                {"op": "ack", "subscription": pulled, "receipt_handles": ["x"] * 101},
                "TooManyEntriesInBatchRequest",
            ),
        ]
        for frame, code in cases:
            answer = await client.request(frame)
            assert answer["type"] == "error", (frame, answer)
            assert answer["error"]["code"] == code, (frame, answer)
        delayed = await client.request(
            {"op": "publish", "topic": "news", "messages": [{"body": "x", "delay_seconds": 1}]}
        )
        assert delayed["results"][0]["error"]["code"] == "InvalidParameterValue"
