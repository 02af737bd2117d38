"""The retry schedule of a delivery policy, against the schedules SNS's documentation gives."""

from __future__ import annotations

import itertools

import pytest

from gateway.core.retry_schedules import (
    BackoffFunction,
    RetryPolicy,
    policy_time_s,
    retry_delay_s,
)


def schedule(policy: RetryPolicy) -> list[float]:
    """The delay before each retry, until the policy gives up."""
    delays = []
    attempt = 1
    while (delay := retry_delay_s(policy, attempt)) is not None:
        delays.append(delay)
        attempt += 1
    return delays


def test_snss_default_is_three_retries_twenty_seconds_apart() -> None:
    # "the default is to retry three times in the backoff phase, with a time delay of
    # 20 seconds between each retry"
    assert schedule(RetryPolicy()) == [20, 20, 20]


def test_snss_linear_example_with_a_maximum_of_forty_seconds() -> None:
    # "Amazon SNS attempts the first retry after 20 seconds, the second retry after 30
    # seconds, and the final retry after 40 seconds"
    assert schedule(RetryPolicy(max_delay_s=40)) == [20, 30, 40]


def test_snss_four_phase_example() -> None:
    # 3 times immediately, 2 times 1 second apart, 10 times with exponential backoff from
    # 1 to 60 seconds, 35 times 60 seconds apart: 50 retries.
    policy = RetryPolicy(
        min_delay_s=1,
        max_delay_s=60,
        num_retries=50,
        num_no_delay_retries=3,
        num_min_delay_retries=2,
        num_max_delay_retries=35,
        backoff_function=BackoffFunction.EXPONENTIAL,
    )
    delays = schedule(policy)
    assert len(delays) == 50
    assert delays[:3] == [0, 0, 0]
    assert delays[3:5] == [1, 1]
    backoff = delays[5:15]
    assert (backoff[0], backoff[-1]) == (1, 60)
    assert backoff == sorted(backoff)
    assert delays[15:] == [60] * 35


def test_snss_customer_managed_endpoints_table() -> None:
    # "0 times without delay, 2 times 10 seconds apart, 10 times with exponential backoff
    # from 10 seconds to 600 seconds, 38 times 600 seconds apart"
    policy = RetryPolicy(
        min_delay_s=10,
        max_delay_s=600,
        num_retries=50,
        num_min_delay_retries=2,
        num_max_delay_retries=38,
        backoff_function=BackoffFunction.EXPONENTIAL,
    )
    delays = schedule(policy)
    assert delays[:2] == [10, 10]
    assert (delays[2], delays[11]) == (10, 600)
    assert delays[12:] == [600] * 38


def test_the_backoff_functions_follow_snss_graph() -> None:
    # SNS's graph: 10 retries from 5 to 260 seconds. All start at the minimum and end at
    # the maximum; in between linear is highest, then arithmetic, geometric, exponential.
    curves = {
        function: schedule(
            RetryPolicy(min_delay_s=5, max_delay_s=260, num_retries=10, backoff_function=function)
        )
        for function in BackoffFunction
    }
    for delays in curves.values():
        assert len(delays) == 10
        assert (delays[0], delays[-1]) == pytest.approx((5, 260))
        assert all(a < b for a, b in itertools.pairwise(delays))
    for i in range(1, 9):
        assert (
            curves[BackoffFunction.LINEAR][i]
            > curves[BackoffFunction.ARITHMETIC][i]
            > curves[BackoffFunction.GEOMETRIC][i]
            > curves[BackoffFunction.EXPONENTIAL][i]
        )
    assert curves[BackoffFunction.LINEAR][1] == pytest.approx(5 + 255 / 9)
    assert curves[BackoffFunction.ARITHMETIC][1] == pytest.approx(5 + 255 * 2 / 90)
    assert curves[BackoffFunction.GEOMETRIC][1] == pytest.approx(5 * 52 ** (1 / 9))
    assert curves[BackoffFunction.EXPONENTIAL][1] == pytest.approx(5 + 255 / 511)


def test_edges_of_the_schedule() -> None:
    assert retry_delay_s(RetryPolicy(), 0) is None
    assert retry_delay_s(RetryPolicy(), 4) is None
    assert schedule(RetryPolicy(num_retries=0)) == []
    # One backoff retry waits the minimum.
    assert schedule(RetryPolicy(min_delay_s=5, max_delay_s=50, num_retries=1)) == [5]
    # A phase may be empty: only immediate retries.
    assert schedule(RetryPolicy(num_retries=2, num_no_delay_retries=2)) == [0, 0]


def test_the_hour_is_counted_as_sns_counts_it() -> None:
    # A public policy SNS accepted at 2399 s and refused at 2400 s: retry once at once,
    # then linear from 1 s.
    def policy(max_delay_s: int) -> RetryPolicy:
        return RetryPolicy(
            min_delay_s=1, max_delay_s=max_delay_s, num_retries=5, num_no_delay_retries=1
        )

    assert policy_time_s(policy(2399)) == 3600
    assert policy_time_s(policy(2400)) > 3600
    assert sum(schedule(policy(2399))) == 4800  # the delays themselves
    assert policy_time_s(RetryPolicy()) == 40
    assert policy_time_s(RetryPolicy(num_retries=3, num_min_delay_retries=1)) == 20 + 20
