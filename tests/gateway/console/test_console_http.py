"""The console over plain HTTP (httpx against a real gateway): the session cookie's
flags, sign-in refusals, and that a change without the session or with a wrong CSRF
token changes nothing. tests/gateway/console/test_console_browser.py drives it in
Chromium."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import TEST_ACCESS_KEY_ID, TEST_SECRET_ACCESS_KEY, RunningGateway

_CSRF = re.compile(r'name="csrf" value="([^"]+)"')


@pytest.fixture
def browser(gateway: RunningGateway) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=gateway.url, follow_redirects=False, timeout=30) as client:
        yield client


def login_token(client: httpx.Client) -> str:
    found = re.search(r'name="login_token" value="([^"]+)"', client.get("/console/login").text)
    assert found is not None
    return found.group(1)


def sign_in(
    client: httpx.Client, key_id: str = TEST_ACCESS_KEY_ID, secret: str = TEST_SECRET_ACCESS_KEY
) -> httpx.Response:
    return client.post(
        "/console/login",
        data={
            "access_key_id": key_id,
            "secret_access_key": secret,
            "login_token": login_token(client),
        },
    )


def csrf_of(client: httpx.Client, path: str) -> str:
    found = _CSRF.search(client.get(path).text)
    assert found is not None
    return found.group(1)


def visible(sqs: Any, url: str) -> int:
    attributes = sqs.get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"]
    )["Attributes"]
    return int(attributes["ApproximateNumberOfMessages"])


def test_signing_in_sets_a_strict_http_only_session_cookie(browser: httpx.Client) -> None:
    assert browser.get("/console").headers["location"] == "/console/login"
    answer = sign_in(browser)
    assert answer.status_code == 303
    assert answer.headers["location"] == "/console"
    [cookie] = [c for c in answer.headers.get_list("set-cookie") if c.startswith("tidemq_console=")]
    flags = {part.strip().lower() for part in cookie.split(";")[1:]}
    assert {"httponly", "samesite=strict", "path=/console"} <= flags
    page = browser.get("/console")
    assert page.status_code == 200
    assert "account 123456789012" in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]


@pytest.mark.parametrize(
    ("key_id", "secret"),
    [(TEST_ACCESS_KEY_ID, "not-the-secret"), ("NOSUCHKEY", TEST_SECRET_ACCESS_KEY), ("", "")],
)
def test_a_wrong_key_or_secret_is_refused(browser: httpx.Client, key_id: str, secret: str) -> None:
    answer = sign_in(browser, key_id, secret)
    assert answer.status_code == 401
    assert "tidemq_console=" not in answer.headers.get("set-cookie", "")
    assert "do not match a key" in answer.text


def test_a_sign_in_posted_from_elsewhere_is_refused(gateway: RunningGateway) -> None:
    # Another site's form: the right key, but without the form's token and its cookie.
    with httpx.Client(base_url=gateway.url, follow_redirects=False) as elsewhere:
        answer = elsewhere.post(
            "/console/login",
            data={
                "access_key_id": TEST_ACCESS_KEY_ID,
                "secret_access_key": TEST_SECRET_ACCESS_KEY,
                "login_token": "made-up",
            },
        )
    assert answer.status_code == 403
    assert "tidemq_console=" not in answer.headers.get("set-cookie", "")


def test_a_purge_without_the_session_or_the_right_token_changes_nothing(
    gateway: RunningGateway, browser: httpx.Client
) -> None:
    sqs = gateway.sqs_client()
    url = sqs.create_queue(QueueName="keep")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="precious")
    sign_in(browser)
    token = csrf_of(browser, "/console/queues/keep/purge")

    with httpx.Client(base_url=gateway.url, follow_redirects=False) as stranger:
        answer = stranger.post("/console/queues/keep/purge", data={"csrf": token})
    assert answer.status_code == 303
    assert answer.headers["location"] == "/console/login"
    for wrong in ({}, {"csrf": ""}, {"csrf": token[:-2] + "AA"}):
        answer = browser.post("/console/queues/keep/purge", data=wrong)
        assert answer.status_code == 403, wrong
        assert "nothing was changed" in answer.text
    # A forged cookie is no session either.
    forged = httpx.Client(base_url=gateway.url, cookies={"tidemq_console": "eA.eA"})
    with forged:
        assert forged.post("/console/queues/keep/purge", data={"csrf": token}).status_code == 303
    assert visible(sqs, url) == 1

    answer = browser.post("/console/queues/keep/purge", data={"csrf": token})
    assert answer.status_code == 303
    assert answer.headers["location"] == "/console/queues/keep?done=purged"
    assert visible(sqs, url) == 0


def test_revoking_the_key_ends_its_sessions(gateway: RunningGateway, browser: httpx.Client) -> None:
    issued = gateway.create_key()
    answer = sign_in(browser, issued.key.access_key_id, issued.secret_access_key)
    assert answer.status_code == 303
    assert browser.get("/console").status_code == 200
    gateway.revoke_key(issued.key.access_key_id)
    assert browser.get("/console").headers["location"] == "/console/login"
    assert browser.get("/console/data.json").status_code == 401


def test_peeked_bodies_are_escaped_and_not_received(
    gateway: RunningGateway, browser: httpx.Client
) -> None:
    sqs = gateway.sqs_client()
    url = sqs.create_queue(QueueName="peeked")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="<script>alert(1)</script>")
    sign_in(browser)
    page = browser.get("/console/queues/peeked/peek")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    assert "<script>alert" not in page.text
    assert "not received yet" in page.text
    # Peeking received nothing: the first receive is the message's first.
    [message] = sqs.receive_message(QueueUrl=url, AttributeNames=["ApproximateReceiveCount"])[
        "Messages"
    ]
    assert message["Attributes"]["ApproximateReceiveCount"] == "1"


def test_the_queue_page_shows_its_dead_letter_queue_and_sources(
    gateway: RunningGateway, browser: httpx.Client
) -> None:
    sqs = gateway.sqs_client()
    dead = sqs.create_queue(QueueName="dead")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=dead, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    policy = json.dumps({"deadLetterTargetArn": arn, "maxReceiveCount": "3"})
    sqs.create_queue(QueueName="work", Attributes={"RedrivePolicy": policy})
    sign_in(browser)
    work = browser.get("/console/queues/work").text
    assert 'href="/console/queues/dead">dead</a>, after 3 receives' in work
    dead_page = browser.get("/console/queues/dead").text
    assert 'href="/console/queues/work">work</a>' in dead_page
    assert "Redrive to source queues" in dead_page
    assert browser.get("/console/queues/nothere").status_code == 404
    data = browser.get("/console/queues/work/data.json").json()
    assert data["queues"]["work"]["visible"] == 0
