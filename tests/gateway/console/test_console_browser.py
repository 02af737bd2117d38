"""The console in headless Chromium (Debian's `chromium` package, driven by Playwright):
sign in, see a queue the test made, watch its depth change after sends without a reload,
peek, purge through the confirmation. Screenshots of each step are kept in
`test-artifacts/console/` (or under $TIDEMQ_TEST_ARTIFACTS)."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.conftest import TEST_ACCESS_KEY_ID, TEST_SECRET_ACCESS_KEY, RunningGateway

ROOT = Path(__file__).resolve().parents[3]
TIMEOUT_MS = 15_000


@pytest.fixture
def chromium(gateway: RunningGateway) -> Iterator[Browser]:
    # After the gateway: Playwright's sync API runs an event loop in this thread, and
    # the gateway fixture's set-up (asyncio.run) cannot run inside it.
    executable = shutil.which("chromium")
    if executable is None:
        pytest.fail("Debian's chromium is needed: `apt-get install chromium` (make test does)")
    with sync_playwright() as playwright:
        # --no-sandbox: the sandbox cannot start as root, which CI and containers run as.
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=["--no-sandbox"]
        )
        yield browser
        browser.close()


@pytest.fixture
def artifacts(request: pytest.FixtureRequest) -> Path:
    base = Path(os.environ.get("TIDEMQ_TEST_ARTIFACTS", ROOT / "test-artifacts"))
    directory = base / "console" / request.node.name
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    return directory


@pytest.fixture
def page(chromium: Browser) -> Iterator[Page]:
    context = chromium.new_context(viewport={"width": 1100, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    yield context.new_page()
    context.close()


def visible(sqs: Any, url: str) -> int:
    attributes = sqs.get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"]
    )["Attributes"]
    return int(attributes["ApproximateNumberOfMessages"])


def test_sign_in_watch_a_queue_fill_peek_and_purge(
    gateway: RunningGateway, page: Page, artifacts: Path
) -> None:
    sqs = gateway.sqs_client()
    url = sqs.create_queue(QueueName="orders")["QueueUrl"]

    page.goto(gateway.url + "/console")
    expect(page).to_have_url(gateway.url + "/console/login")
    page.fill("#access_key_id", TEST_ACCESS_KEY_ID)
    page.fill("#secret_access_key", TEST_SECRET_ACCESS_KEY)
    page.screenshot(path=artifacts / "1-sign-in.png")
    page.click("#login button[type=submit]")
    expect(page).to_have_url(gateway.url + "/console")
    row = page.locator('#queues tr[data-queue="orders"]')
    expect(row.locator('[data-field="visible"]')).to_have_text("0")
    page.screenshot(path=artifacts / "2-signed-in.png")

    # The numbers follow the queue without a reload: the marker survives.
    page.evaluate("window.notReloaded = true")
    for body in ("first", "second", "third"):
        sqs.send_message(QueueUrl=url, MessageBody=body)
    expect(row.locator('[data-field="visible"]')).to_have_text("3")
    assert page.evaluate("window.notReloaded") is True
    # The charts are drawn from the polls (the page's CSP forbids evaluating strings,
    # so this waits on the DOM, not on a script).
    expect(page.locator("body")).to_have_attribute("data-polls", re.compile(r"^([3-9]|\d\d+)$"))
    points = page.locator("#chart-waiting polyline").get_attribute("points") or ""
    assert len(points.split()) >= 3, points
    page.screenshot(path=artifacts / "3-three-sent.png")

    page.click('#queues a[href="/console/queues/orders"]')
    expect(page.locator("h1")).to_have_text("Queue orders")
    page.click("text=Peek at messages")
    peeked = page.locator("#peeked tbody tr")
    expect(peeked).to_have_count(3)
    expect(peeked.first).to_contain_text("first")
    expect(peeked.first).to_contain_text("not received yet")
    page.screenshot(path=artifacts / "4-peek.png")
    assert visible(sqs, url) == 3  # peeking received nothing

    page.click('h1 a[href="/console/queues/orders"]')
    page.click("text=Purge…")
    expect(page.locator("h1")).to_have_text("Purge orders?")
    page.screenshot(path=artifacts / "5-confirm-purge.png")
    assert visible(sqs, url) == 3  # asking changed nothing
    page.click("#confirm button[type=submit]")
    expect(page.locator(".notice")).to_contain_text("The queue was purged")
    expect(page.locator('#stats [data-field="visible"]')).to_have_text("0")
    page.screenshot(path=artifacts / "6-purged.png")
    assert visible(sqs, url) == 0

    for number in range(1, 7):
        [shot] = artifacts.glob(f"{number}-*.png")
        assert shot.stat().st_size > 1000, shot


def test_signing_out_ends_the_session(gateway: RunningGateway, page: Page) -> None:
    page.goto(gateway.url + "/console/login")
    page.fill("#access_key_id", TEST_ACCESS_KEY_ID)
    page.fill("#secret_access_key", TEST_SECRET_ACCESS_KEY)
    page.click("#login button[type=submit]")
    expect(page.locator(".account")).to_have_text("account 123456789012")
    assert page.evaluate("document.cookie") == ""  # HttpOnly: the page's script cannot read it
    page.click("header button[type=submit]")
    expect(page).to_have_url(gateway.url + "/console/login")
    page.goto(gateway.url + "/console")
    expect(page).to_have_url(gateway.url + "/console/login")
