"""Requests to the SQS endpoint are refused, with AWS's 403 codes and nothing changed,
unless signed (SigV4) with a registered key; the key's account is the request's account."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from botocore.exceptions import ClientError

from control_plane.clock import ManualClock
from tests.conftest import (
    TEST_ACCESS_KEY_ID,
    AccountSqs,
    MakeAccessKey,
    RunningGateway,
    start_gateway,
)
from tests.sigv4_signing import JSON_1_0, SqsRequest

CREATE_QUEUE = "AmazonSQS.CreateQueue"


def _queue_names(sqs: Any) -> list[str]:
    return [url.rsplit("/", 1)[1] for url in sqs.list_queues().get("QueueUrls", [])]


def _assert_refused(response: httpx.Response, code: str) -> None:
    assert response.status_code == 403, response.text
    assert response.json()["__type"] == f"com.amazonaws.sqs#{code}"
    assert response.json()["message"]
    assert response.headers["x-amzn-query-error"] == f"{code};Sender"


def _assert_client_refused(caught: pytest.ExceptionInfo[ClientError], code: str) -> None:
    assert caught.value.response["Error"]["Code"] == code
    assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403


def _create(gateway: RunningGateway, name: str) -> SqsRequest:
    return SqsRequest(gateway.url, CREATE_QUEUE, json.dumps({"QueueName": name}).encode())


def test_an_unsigned_request_is_refused_and_creates_nothing(
    gateway: RunningGateway, sqs: Any
) -> None:
    response = _create(gateway, "unsigned").send()
    _assert_refused(response, "MissingAuthenticationToken")
    assert "valid (registered) AWS access key ID" in response.json()["message"]
    assert _queue_names(sqs) == []


def test_health_and_readiness_need_no_credentials(gateway: RunningGateway) -> None:
    assert httpx.get(gateway.url + "/healthz").status_code == 200
    assert httpx.get(gateway.url + "/readyz").status_code == 200


def test_a_wrong_secret_is_refused(gateway: RunningGateway, sqs: Any) -> None:
    wrong = gateway.sqs_client(secret_access_key="not-the-secret")
    with pytest.raises(ClientError) as caught:
        wrong.create_queue(QueueName="wrong-secret")
    _assert_client_refused(caught, "SignatureDoesNotMatch")
    assert "does not match the signature you provided" in str(caught.value)
    assert _queue_names(sqs) == []


def test_an_unknown_key_id_is_refused(gateway: RunningGateway, sqs: Any) -> None:
    unknown = gateway.sqs_client(access_key_id="TQUNKNOWNKEY00000000")
    with pytest.raises(ClientError) as caught:
        unknown.create_queue(QueueName="unknown-key")
    _assert_client_refused(caught, "InvalidClientTokenId")
    assert _queue_names(sqs) == []


@pytest.mark.parametrize("skew", [timedelta(minutes=-16), timedelta(minutes=16)])
def test_a_request_dated_more_than_15_minutes_off_is_refused(
    gateway: RunningGateway, sqs: Any, skew: timedelta
) -> None:
    response = _create(gateway, "stale").sign(at=datetime.now(UTC) + skew).send()
    _assert_refused(response, "RequestExpired")
    assert (
        "Signature expired" in response.json()["message"]
        or "not yet current" in (response.json()["message"])
    )
    assert _queue_names(sqs) == []


def test_a_request_dated_within_15_minutes_is_accepted(gateway: RunningGateway, sqs: Any) -> None:
    response = _create(gateway, "recent").sign(at=datetime.now(UTC) - timedelta(minutes=14)).send()
    assert response.status_code == 200, response.text
    assert _queue_names(sqs) == ["recent"]


@pytest.fixture
def manual_clock_gateway(
    redis_url: str, tmp_path: Path
) -> Iterator[tuple[RunningGateway, ManualClock]]:
    clock = ManualClock(int(datetime.now(UTC).timestamp() * 1000))
    running = start_gateway(redis_url, tmp_path / "data", auth_clock=clock)
    yield running, clock
    running.stop()


def test_the_gateways_clock_decides_what_is_stale(
    manual_clock_gateway: tuple[RunningGateway, ManualClock],
) -> None:
    gateway, clock = manual_clock_gateway
    sqs = gateway.sqs_client()
    request = _create(gateway, "timed").sign()
    clock.advance(16 * 60 * 1000)
    _assert_refused(request.send(), "RequestExpired")
    with pytest.raises(ClientError) as caught:
        sqs.create_queue(QueueName="timed")
    _assert_client_refused(caught, "RequestExpired")


def test_a_body_changed_after_signing_is_refused(gateway: RunningGateway, sqs: Any) -> None:
    url = sqs.create_queue(QueueName="tampered")["QueueUrl"]
    request = SqsRequest(
        gateway.url,
        "AmazonSQS.SendMessage",
        json.dumps({"QueueUrl": url, "MessageBody": "pay 10"}).encode(),
    ).sign()
    request.body = json.dumps({"QueueUrl": url, "MessageBody": "pay 99"}).encode()
    _assert_refused(request.send(), "SignatureDoesNotMatch")

    # Claiming the new body's hash does not help: the signature covers the old one.
    request.headers["X-Amz-Content-SHA256"] = "0" * 64
    _assert_refused(request.send(), "SignatureDoesNotMatch")
    assert "Messages" not in sqs.receive_message(QueueUrl=url)


def test_an_unsigned_payload_is_refused(gateway: RunningGateway, sqs: Any) -> None:
    request = _create(gateway, "unsigned-payload")
    request.headers["X-Amz-Content-SHA256"] = "UNSIGNED-PAYLOAD"
    _assert_refused(request.sign().send(), "SignatureDoesNotMatch")
    assert _queue_names(sqs) == []


def test_a_revoked_key_is_refused_from_the_next_request_on(
    gateway: RunningGateway, make_access_key: MakeAccessKey, sqs: Any
) -> None:
    issued = make_access_key()
    client = gateway.client_for(issued)
    client.create_queue(QueueName="before-revoke")
    gateway.revoke_key(issued.key.access_key_id)
    with pytest.raises(ClientError) as caught:
        client.create_queue(QueueName="after-revoke")
    _assert_client_refused(caught, "InvalidClientTokenId")
    assert _queue_names(sqs) == ["before-revoke"]


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (
            {"Authorization": "AWS4-HMAC-SHA256 Credential=TQTESTACCESSKEY00001"},
            "IncompleteSignature",
        ),
        ({"Authorization": "AWS AKIDEXAMPLE:c2lnbmF0dXJl"}, "IncompleteSignature"),
        (
            {
                "Authorization": "AWS4-HMAC-SHA256 Credential=TQTESTACCESSKEY00001/20240101, "
                "SignedHeaders=host;x-amz-date, Signature=00"
            },
            "IncompleteSignature",
        ),
        ({"X-Amz-Date": "yesterday"}, "IncompleteSignature"),
        ({"X-Amz-Security-Token": "FQoGZXIvYXdzE"}, "InvalidClientTokenId"),
    ],
)
def test_malformed_signatures_are_refused(
    gateway: RunningGateway, sqs: Any, change: dict[str, str], code: str
) -> None:
    request = _create(gateway, "malformed").sign()
    request.headers.update(change)
    _assert_refused(request.send(), code)
    assert _queue_names(sqs) == []


def test_a_date_missing_altogether_is_refused(gateway: RunningGateway) -> None:
    request = _create(gateway, "no-date").sign()
    del request.headers["X-Amz-Date"]
    response = request.send()
    _assert_refused(response, "IncompleteSignature")
    assert "'X-Amz-Date' or a 'Date' header" in response.json()["message"]


def test_a_signature_for_another_service_or_day_is_refused(gateway: RunningGateway) -> None:
    response = _create(gateway, "for-s3").sign(service="s3").send()
    _assert_refused(response, "SignatureDoesNotMatch")
    assert "scoped to correct service: 'sqs'" in response.json()["message"]

    request = _create(gateway, "other-day").sign()
    request.headers["Authorization"] = request.headers["Authorization"].replace(
        f"{TEST_ACCESS_KEY_ID}/{request.headers['X-Amz-Date'][:8]}",
        f"{TEST_ACCESS_KEY_ID}/20000101",
    )
    response = request.send()
    _assert_refused(response, "SignatureDoesNotMatch")
    assert "Date in Credential scope does not match" in response.json()["message"]


def test_any_region_is_accepted(gateway: RunningGateway, sqs: Any) -> None:
    assert _create(gateway, "eu").sign(region="eu-west-3").send().status_code == 200
    assert _queue_names(sqs) == ["eu"]


def test_presigned_urls_are_not_accepted(gateway: RunningGateway) -> None:
    response = httpx.post(
        gateway.url + "/?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=00",
        content=b'{"QueueName": "presigned"}',
        headers={"X-Amz-Target": CREATE_QUEUE, "Content-Type": JSON_1_0},
    )
    _assert_refused(response, "IncompleteSignature")
    assert "Presigned" in response.json()["message"]


def test_a_signed_query_string_is_verified(gateway: RunningGateway, sqs: Any) -> None:
    request = _create(gateway, "with-query")
    request.path = "/?b=2&a=%2Fx&a=1&empty"
    # botocore signs the query as given; the gateway derives the canonical form itself.
    assert request.sign().send().status_code == 200
    assert _queue_names(sqs) == ["with-query"]


def test_accounts_are_isolated(account_sqs: AccountSqs) -> None:
    alice = account_sqs("111122223333")
    bob = account_sqs("444455556666")
    alice_url = alice.create_queue(QueueName="orders")["QueueUrl"]
    alice.send_message(QueueUrl=alice_url, MessageBody="alice's order")
    assert "/111122223333/orders" in alice_url

    with pytest.raises(bob.exceptions.QueueDoesNotExist):
        bob.get_queue_url(QueueName="orders")
    with pytest.raises(bob.exceptions.QueueDoesNotExist):
        bob.get_queue_url(QueueName="orders", QueueOwnerAWSAccountId="111122223333")
    with pytest.raises(bob.exceptions.QueueDoesNotExist):
        bob.send_message(QueueUrl=alice_url, MessageBody="bob's intrusion")
    with pytest.raises(bob.exceptions.QueueDoesNotExist):
        bob.receive_message(QueueUrl=alice_url)
    with pytest.raises(bob.exceptions.QueueDoesNotExist):
        bob.delete_queue(QueueUrl=alice_url)
    with pytest.raises(bob.exceptions.QueueDoesNotExist):
        bob.get_queue_attributes(QueueUrl=alice_url, AttributeNames=["All"])
    assert _queue_names(bob) == []

    # Bob's queue of the same name is his own.
    bob_url = bob.create_queue(QueueName="orders")["QueueUrl"]
    assert "/444455556666/orders" in bob_url
    assert "Messages" not in bob.receive_message(QueueUrl=bob_url)
    assert _queue_names(bob) == ["orders"]
    assert _queue_names(alice) == ["orders"]

    [message] = alice.receive_message(QueueUrl=alice_url)["Messages"]
    assert message["Body"] == "alice's order"
    attributes = alice.get_queue_attributes(QueueUrl=alice_url, AttributeNames=["QueueArn"])
    assert attributes["Attributes"]["QueueArn"].endswith(":111122223333:orders")


def test_a_key_revoked_is_refused_at_once_by_every_gateway_that_cached_it(
    gateway: RunningGateway, make_access_key: MakeAccessKey, tmp_path: Path
) -> None:
    second = start_gateway(gateway.redis_url, tmp_path / "second")
    try:
        issued = make_access_key()
        clients = [g.client_for(issued) for g in (gateway, second)]
        for client in clients:  # each gateway has now looked the key up, and keeps it
            client.list_queues()
        gateway.revoke_key(issued.key.access_key_id)
        for client in clients:
            with pytest.raises(ClientError) as caught:
                client.list_queues()
            _assert_client_refused(caught, "InvalidClientTokenId")
    finally:
        second.stop()


def test_a_key_given_a_new_secret_is_refused_with_the_old_one(
    gateway: RunningGateway, make_access_key: MakeAccessKey
) -> None:
    issued = make_access_key()
    old = gateway.client_for(issued)
    old.list_queues()
    renewed = gateway.put_key(
        issued.key.account_id, issued.key.access_key_id, "a-new-secret-for-the-same-key-id-00"
    )
    with pytest.raises(ClientError) as caught:
        old.list_queues()
    _assert_client_refused(caught, "SignatureDoesNotMatch")
    gateway.client_for(renewed).list_queues()
