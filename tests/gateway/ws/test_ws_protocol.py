"""The WebSocket API end to end: publish, pushed deliveries within credit, ack / nack /
extend, unsubscribe and close, bad frames; every frame checked against the AsyncAPI
document (tests/gateway/ws/conftest.py)."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

from tests.conftest import RunningGateway
from tests.gateway.ws.conftest import ConnectWs, NewToken, WsClient


def _queue(gateway: RunningGateway, name: str = "orders", **attributes: str) -> tuple[Any, str]:
    sqs = gateway.sqs_client()
    return sqs, sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]


async def _publish(client: WsClient, *bodies: str, queue: str = "orders") -> dict[str, Any]:
    answer = await client.request(
        {"op": "publish", "queue": queue, "messages": [{"body": b} for b in bodies]}
    )
    assert answer["type"] == "published", answer
    return answer


async def test_publish_answers_once_durable_and_the_sqs_api_receives_it(
    gateway: RunningGateway, connect_ws: ConnectWs, new_token: NewToken
) -> None:
    sqs, url = _queue(gateway)
    async with connect_ws(await new_token()) as client:
        answer = await client.request(
            {
                "op": "publish",
                "queue": "orders",
                "messages": [
                    {
                        "body": "one",
                        "attributes": {"k": {"data_type": "String", "string_value": "v"}},
                    },
                    {"body": "two\u0000"},  # NUL is not allowed: this entry alone fails
                ],
            }
        )
    assert answer["type"] == "published"
    first, second = answer["results"]
    assert first["md5_of_body"] == hashlib.md5(b"one").hexdigest()
    assert second["error"]["code"] == "InvalidMessageContents"
    messages = sqs.receive_message(QueueUrl=url, MessageAttributeNames=["All"])["Messages"]
    assert [(m["MessageId"], m["Body"]) for m in messages] == [(first["message_id"], "one")]
    assert messages[0]["MessageAttributes"]["k"]["StringValue"] == "v"


async def test_a_subscription_gets_at_most_its_credit_until_messages_are_settled(
    gateway: RunningGateway, connect_ws: ConnectWs, new_token: NewToken
) -> None:
    _queue(gateway)
    async with connect_ws(await new_token()) as client:
        await _publish(client, *(f"m{i}" for i in range(10)))
        answer = await client.request({"op": "subscribe", "queue": "orders", "credit": 3})
        assert answer["type"] == "subscribed"
        first = await client.deliveries(3)
        await client.nothing_pushed(for_s=0.5)

        acked = await client.request(
            {"op": "ack", "queue": "orders", "receipt_handles": [first[0]["receipt_handle"]]}
        )
        assert (acked["type"], acked["results"]) == ("settled", [{"index": 0}])
        [fourth] = await client.deliveries(1)
        await client.nothing_pushed(for_s=0.3)

        # 3 unsettled (two of the first three, the fourth): room for the last 6.
        raised = await client.request({"op": "credit", "queue": "orders", "credit": 9})
        assert raised == {"type": "credit_set", "queue": "orders", "credit": 9, "id": raised["id"]}
        rest = await client.deliveries(6)
        bodies = sorted(m["body"] for m in [*first, fourth, *rest])
        assert bodies == sorted(f"m{i}" for i in range(10))
        await client.nothing_pushed(for_s=0.3)


async def test_a_send_is_pushed_at_once_to_a_waiting_subscription(
    gateway: RunningGateway, connect_ws: ConnectWs, new_token: NewToken
) -> None:
    sqs, url = _queue(gateway)
    async with connect_ws(await new_token()) as client:
        await client.request({"op": "subscribe", "queue": "orders"})
        await asyncio.sleep(0.2)  # the subscription is waiting on an empty queue
        await asyncio.to_thread(sqs.send_message, QueueUrl=url, MessageBody="hello")
        [message] = await client.deliveries(1)
    assert message["body"] == "hello"
    assert message["receive_count"] == 1


async def test_nack_gives_a_message_back_and_extend_keeps_it(
    gateway: RunningGateway, connect_ws: ConnectWs, new_token: NewToken
) -> None:
    sqs, url = _queue(gateway)
    async with connect_ws(await new_token()) as client:
        await _publish(client, "again", "kept")
        await client.request(
            {"op": "subscribe", "queue": "orders", "credit": 2, "visibility_timeout": 1}
        )
        received = {m["body"]: m for m in await client.deliveries(2)}
        extended = await client.request(
            {
                "op": "extend",
                "queue": "orders",
                "receipt_handles": [received["kept"]["receipt_handle"]],
                "visibility_timeout": 60,
            }
        )
        assert extended["results"] == [{"index": 0}]
        nacked = await client.request(
            {
                "op": "nack",
                "queue": "orders",
                "receipt_handles": [received["again"]["receipt_handle"]],
            }
        )
        assert nacked["results"] == [{"index": 0}]
        [redelivered] = await client.deliveries(1)
        assert (redelivered["body"], redelivered["receive_count"]) == ("again", 2)
        await client.request(
            {"op": "ack", "queue": "orders", "receipt_handles": [redelivered["receipt_handle"]]}
        )
        # Past the subscription's 1 s visibility timeout, "kept" is still invisible.
        await asyncio.sleep(1.5)
        response = await asyncio.to_thread(sqs.receive_message, QueueUrl=url)
        assert "Messages" not in response
        await client.nothing_pushed(for_s=0.1)


async def test_a_lapsed_visibility_timeout_frees_credit_and_redelivers(
    gateway: RunningGateway, connect_ws: ConnectWs, new_token: NewToken
) -> None:
    _queue(gateway)
    async with connect_ws(await new_token()) as client:
        await _publish(client, "slow")
        await client.request(
            {"op": "subscribe", "queue": "orders", "credit": 1, "visibility_timeout": 1}
        )
        [first] = await client.deliveries(1)
        [second] = await client.deliveries(1)  # never acked: back after 1 s
    assert (first["body"], first["receive_count"]) == ("slow", 1)
    assert (second["body"], second["receive_count"]) == ("slow", 2)


async def test_closing_the_connection_gives_unsettled_messages_back_at_once(
    gateway: RunningGateway, connect_ws: ConnectWs, new_token: NewToken
) -> None:
    sqs, url = _queue(gateway)  # visibility timeout 30 s
    async with connect_ws(await new_token()) as client:
        await _publish(client, "unfinished")
        await client.request({"op": "subscribe", "queue": "orders"})
        await client.deliveries(1)
    response = await asyncio.to_thread(
        sqs.receive_message, QueueUrl=url, WaitTimeSeconds=5, AttributeNames=["All"]
    )
    [message] = response["Messages"]
    assert message["Body"] == "unfinished"
    assert message["Attributes"]["ApproximateReceiveCount"] == "2"


async def test_unsubscribe_stops_pushes_and_gives_messages_back(
    gateway: RunningGateway, connect_ws: ConnectWs, new_token: NewToken
) -> None:
    _queue(gateway)
    async with connect_ws(await new_token()) as client:
        await client.request({"op": "subscribe", "queue": "orders", "credit": 1})
        twice = await client.request({"op": "subscribe", "queue": "orders"})
        assert twice["error"]["code"] == "AlreadySubscribed"
        await _publish(client, "a", "b")
        [held] = await client.deliveries(1)
        answer = await client.request({"op": "unsubscribe", "queue": "orders"})
        assert answer["type"] == "unsubscribed"
        await _publish(client, "c")
        await client.nothing_pushed(for_s=0.3)
        answer = await client.request({"op": "credit", "queue": "orders", "credit": 5})
        assert answer["error"]["code"] == "NotSubscribed"

        await client.request({"op": "subscribe", "queue": "orders", "credit": 5})
        again = await client.deliveries(3)
    assert sorted(m["body"] for m in again) == ["a", "b", "c"]
    assert held["body"] in {"a", "b"}


async def test_deleting_the_queue_ends_its_subscriptions(
    gateway: RunningGateway, connect_ws: ConnectWs, new_token: NewToken
) -> None:
    sqs, url = _queue(gateway)
    async with connect_ws(await new_token()) as client:
        await client.request({"op": "subscribe", "queue": "orders"})
        await asyncio.to_thread(sqs.delete_queue, QueueUrl=url)
        frame = await client.recv(timeout_s=30)
    assert frame["type"] == "unsubscribed"
    assert frame["reason"]["code"] == "QueueDoesNotExist"


async def test_fifo_messages_come_in_order(
    gateway: RunningGateway, connect_ws: ConnectWs, new_token: NewToken
) -> None:
    _queue(gateway, "jobs.fifo", FifoQueue="true", ContentBasedDeduplication="true")
    async with connect_ws(await new_token()) as client:
        answer = await client.request(
            {
                "op": "publish",
                "queue": "jobs.fifo",
                "messages": [{"body": f"step {i}", "group_id": "g"} for i in range(5)],
            }
        )
        assert all("sequence_number" in r for r in answer["results"])
        await client.request({"op": "subscribe", "queue": "jobs.fifo", "credit": 1})
        bodies = []
        for _ in range(5):
            [message] = await client.deliveries(1)
            bodies.append(message["body"])
            await client.request(
                {"op": "ack", "queue": "jobs.fifo", "receipt_handles": [message["receipt_handle"]]}
            )
    assert bodies == [f"step {i}" for i in range(5)]


async def test_bad_frames_get_errors_and_the_connection_goes_on(
    gateway: RunningGateway, connect_ws: ConnectWs, new_token: NewToken
) -> None:
    _queue(gateway)
    async with connect_ws(await new_token()) as client:
        cases: list[tuple[str | bytes, str]] = [
            ("not json", "SerializationException"),
            ("[1, 2]", "InvalidParameterValue"),
            ('{"op": "dance", "id": "x"}', "InvalidParameterValue"),
            ('{"queue": "orders"}', "MissingParameter"),
            ('{"op": "subscribe", "id": "x"}', "MissingParameter"),
            ('{"op": "subscribe", "queue": "orders", "credit": 5000}', "InvalidParameterValue"),
            ('{"op": "subscribe", "queue": "orders", "color": "red"}', "InvalidParameterValue"),
            ('{"op": "ack", "queue": "orders", "receipt_handles": []}', "EmptyBatchRequest"),
            ('{"op": "ack", "queue": "orders", "receipt_handles": ["forged"]}', ""),
            (
                '{"op": "publish", "queue": "nope", "messages": [{"body": "x"}]}',
                "QueueDoesNotExist",
            ),
            (b'{"op": "subscribe", "queue": "nope"}', "QueueDoesNotExist"),
        ]
        for raw, code in cases:
            await client.connection.send(raw)
            answer = await client.recv()
            if not code:  # per-entry failure: the frame itself was fine
                assert answer["results"][0]["error"]["code"] == "ReceiptHandleIsInvalid"
                continue
            assert answer["type"] == "error", (raw, answer)
            assert answer["error"]["code"] == code, (raw, answer)
        answer = await client.request({"op": "dance"})
        assert answer["error"]["message"].startswith("Invalid frame: `op` must be one of")
        assert (await client.request({"op": "subscribe", "queue": "orders"}))["type"] == (
            "subscribed"
        )
