"""Fair admission: the scheduler's slots, queues and turns, and who a request claims to be."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from gateway.admission import AdmissionLimits, FairScheduler, caller_of


def _scope(*headers: tuple[bytes, bytes], client: tuple[str, int] | None = None) -> Any:
    return {"type": "http", "headers": list(headers), "client": client}


class _Requests:
    """Requests of named callers, each acquiring on its own task, in the order made."""

    def __init__(self, scheduler: FairScheduler) -> None:
        self.scheduler = scheduler
        self.admitted: list[str] = []
        self.tasks: dict[str, asyncio.Task[None]] = {}

    def start(self, name: str) -> None:
        caller = name.rstrip("0123456789")

        async def one() -> None:
            await self.scheduler.acquire(caller)
            self.admitted.append(name)

        self.tasks[name] = asyncio.create_task(one())

    def done(self, name: str) -> None:
        """The request `name` (admitted) finishes and gives its slot back."""
        assert name in self.admitted
        self.scheduler.release(name.rstrip("0123456789"))


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_a_caller_alone_gets_slots_up_to_its_cap() -> None:
    requests = _Requests(FairScheduler(AdmissionLimits(max_active=8, max_active_per_caller=3)))
    for i in range(5):
        requests.start(f"a{i}")
    await _settle()
    assert requests.admitted == ["a0", "a1", "a2"]
    assert requests.scheduler.waiting_of("a") == 2
    requests.done("a0")
    await _settle()
    assert requests.admitted == ["a0", "a1", "a2", "a3"]


async def test_another_callers_request_does_not_wait_behind_a_burst() -> None:
    requests = _Requests(FairScheduler(AdmissionLimits(max_active=2, max_active_per_caller=2)))
    for i in range(100):
        requests.start(f"a{i}")
    await _settle()
    assert requests.admitted == ["a0", "a1"]
    requests.start("b0")
    await _settle()
    requests.done("a0")
    await _settle()
    # The freed slot goes to b, though 98 of a's were waiting before it.
    assert requests.admitted == ["a0", "a1", "b0"]


async def test_a_caller_under_its_cap_is_admitted_while_another_waits_at_its_cap() -> None:
    requests = _Requests(FairScheduler(AdmissionLimits(max_active=4, max_active_per_caller=2)))
    for i in range(50):
        requests.start(f"a{i}")
    requests.start("b0")
    await _settle()
    assert requests.admitted == ["a0", "a1", "b0"]


async def test_waiting_callers_are_served_in_turn() -> None:
    requests = _Requests(FairScheduler(AdmissionLimits(max_active=1, max_active_per_caller=1)))
    requests.start("x0")
    for name in ("a0", "a1", "a2", "b0", "b1", "c0"):
        requests.start(name)
    await _settle()
    assert requests.admitted == ["x0"]
    for _ in range(6):
        requests.done(requests.admitted[-1])
        await _settle()
    assert requests.admitted == ["x0", "a0", "b0", "c0", "a1", "b1", "a2"]


async def test_a_request_cancelled_while_waiting_leaves_its_queue() -> None:
    requests = _Requests(FairScheduler(AdmissionLimits(max_active=1, max_active_per_caller=1)))
    for name in ("a0", "b0", "b1", "c0"):
        requests.start(name)
    await _settle()
    requests.tasks["b0"].cancel()
    requests.tasks["c0"].cancel()
    await _settle()
    assert requests.scheduler.waiting_of("b") == 1
    assert requests.scheduler.waiting_of("c") == 0
    requests.done("a0")
    await _settle()
    assert requests.admitted == ["a0", "b1"]
    assert requests.scheduler.active == 1


async def test_a_request_cancelled_as_it_is_admitted_gives_its_slot_back() -> None:
    scheduler = FairScheduler(AdmissionLimits(max_active=1, max_active_per_caller=1))
    await scheduler.acquire("a")
    waiting = asyncio.create_task(scheduler.acquire("b"))
    await _settle()
    scheduler.release("a")  # grants b's slot: its task has not run yet
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert scheduler.active == 0
    await asyncio.wait_for(scheduler.acquire("c"), 1)  # the slot is free again


def test_limits_must_leave_each_caller_at_least_one_slot_within_the_total() -> None:
    with pytest.raises(ValueError, match="max_active_per_caller"):
        AdmissionLimits(max_active=4, max_active_per_caller=5)
    with pytest.raises(ValueError, match="max_active_per_caller"):
        AdmissionLimits(max_active=4, max_active_per_caller=0)


def test_the_caller_of_a_sigv4_request_is_its_access_key_id() -> None:
    header = (
        b"AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE/20261125/us-east-1/sqs/aws4_request, "
        b"SignedHeaders=host;x-amz-date, Signature=abc"
    )
    assert caller_of(_scope((b"authorization", header))) == "key:AKIAEXAMPLE"


def test_the_caller_of_a_bearer_request_is_its_token() -> None:
    scope = _scope((b"authorization", b"Bearer tqb_abc123 "))
    assert caller_of(scope) == "token:tqb_abc123"
    assert caller_of(_scope((b"authorization", b"bearer tqb_abc123"))) == "token:tqb_abc123"


def test_the_caller_of_a_console_request_is_its_session() -> None:
    cookie = b"other=1; tidemq_console=s3ss10n; theme=dark"
    assert caller_of(_scope((b"cookie", cookie))) == "session:s3ss10n"


def test_a_request_without_credentials_is_known_by_its_address() -> None:
    assert caller_of(_scope(client=("10.0.0.7", 5555))) == "ip:10.0.0.7"
    assert caller_of(_scope((b"authorization", b"Basic Zm9vOmJhcg=="))) == "ip:-"


def test_a_long_claim_names_its_caller_by_its_beginning() -> None:
    long_key = b"K" * 10_000
    header = b"AWS4-HMAC-SHA256 Credential=" + long_key
    assert caller_of(_scope((b"authorization", header))) == "key:" + "K" * 64
    assert caller_of(_scope((b"authorization", b"Bearer " + long_key))) == "token:" + "K" * 64
