"""The bounded series of gateway/metrics.py: past the cap a queue counts into `_other`,
and a dropped queue's series leave the registry."""

from __future__ import annotations

import uuid

from prometheus_client import REGISTRY

from gateway.metrics import OTHER, QueueSeries, outcome


def sent(account: str, queue: str) -> float | None:
    return REGISTRY.get_sample_value(
        "tidemq_queue_sent_messages_total", {"account": account, "queue": queue}
    )


def test_queues_past_the_cap_count_as_other_and_dropped_ones_go() -> None:
    account = uuid.uuid4().hex[:12]  # labels of this test alone
    series = QueueSeries(max_queues=2)
    other_before = sent(OTHER, OTHER) or 0
    for name, count in (("a", 1), ("b", 2), ("c", 3), ("d", 4)):
        series.of(account, name).sent.inc(count)
    assert (sent(account, "a"), sent(account, "b")) == (1, 2)
    assert (sent(account, "c"), sent(account, "d")) == (None, None)
    assert sent(OTHER, OTHER) == other_before + 7

    series.drop(account, "a")
    assert sent(account, "a") is None
    series.of(account, "e").sent.inc(5)  # room again
    assert sent(account, "e") == 5


def test_outcomes_by_status() -> None:
    assert [outcome(s) for s in (200, 204, 303, 400, 404, 413, 500, 503)] == [
        "ok", "ok", "ok", "client_error", "client_error", "client_error",
        "server_error", "server_error",
    ]  # fmt: skip
