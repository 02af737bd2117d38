"""PartitionHealth: when a partition counts as down, and when it stops counting so."""

from __future__ import annotations

from tests.tidemq.cluster.conftest import Monotonic
from tidemq.cluster.partition_health import PartitionHealth


def _health() -> tuple[PartitionHealth[str], Monotonic]:
    clock = Monotonic()
    return PartitionHealth[str](down_for_s=1.0, unanswered_s=0.5, monotonic_s=clock), clock


def test_a_failure_that_leaves_no_node_marks_the_partition_down_for_a_while() -> None:
    health, clock = _health()
    health.failed("p", health.sent("p"), down=False)  # a Redis hiccup, say: not down
    assert not health.is_down("p")
    health.failed("p", health.sent("p"), down=True)
    assert health.is_down("p")
    assert not health.is_down("q")
    clock.now_s += 1.01
    assert not health.is_down("p")  # aged out: the next request tries it again


def test_a_success_clears_the_mark() -> None:
    health, _ = _health()
    health.failed("p", health.sent("p"), down=True)
    health.answered("p", health.sent("p"))
    assert not health.is_down("p")


def test_a_request_unanswered_too_long_marks_it_down_then_lets_it_be_tried_again() -> None:
    health, clock = _health()
    stuck = health.sent("p")
    clock.now_s += 0.4
    assert not health.is_down("p")
    clock.now_s += 0.2
    assert health.is_down("p")
    clock.now_s += 1.01  # the mark is over: tried again, though the request still waits
    assert not health.is_down("p")
    clock.now_s += 0.51
    assert health.is_down("p")  # still unanswered: down again
    health.answered("p", health.sent("p"))  # another request, on a new owner, succeeds
    assert not health.is_down("p")
    health.failed("p", stuck, down=False)  # the stuck one ends: nothing left of it
    assert not health.is_down("p")


def test_forget_drops_the_marks_of_a_stream() -> None:
    health, _ = _health()
    health.mark_down("s1/0")
    health.mark_down("s2/0")
    health.forget(lambda key: key.startswith("s1/"))
    assert not health.is_down("s1/0")
    assert health.is_down("s2/0")
