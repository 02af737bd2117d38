"""The retry schedule of an HTTP/S delivery under SNS's retry policy (the `healthyRetryPolicy`
of a delivery policy, gateway/core/delivery_policies.py).

After the first attempt fails, the retries come in four phases (SNS's "Amazon SNS message
delivery retries"):

    1. numNoDelayRetries retries at once;
    2. numMinDelayRetries retries, minDelayTarget apart;
    3. the backoff phase: the rest of numRetries, the first minDelayTarget after the one
       before, the last maxDelayTarget, and those between along the backoff function;
    4. numMaxDelayRetries retries, maxDelayTarget apart.

SNS publishes the backoff functions only as a graph (10 retries from 5 s to 260 s): all
four start at the minimum and end at the maximum, linear is a straight line, and the
others bow ever lower in the middle: arithmetic, then geometric, then exponential.
TideMQ's functions, for retry i (from 0) of the n of the phase, with t = i / (n - 1):

    linear       min + (max - min) t                          SNS's example: 20, 30, 40 s
    arithmetic   min + (max - min) i (i + 1) / (n (n - 1))    steps growing by a constant
    geometric    min (max / min) ^ t                          a constant ratio
    exponential  min + (max - min) (2^i - 1) / (2^(n-1) - 1)  steps doubling

A phase of one backoff retry waits the minimum. The delays are the policy's; SNS adds
jitter to its retries, which a dispatcher may add on top.

SNS also refuses a policy whose retries take more than an hour, without saying how it
counts them. The one measured boundary in public (numRetries 5, numNoDelayRetries 1,
1 s to 2399 s linear: accepted; 2400 s: refused) matches counting the backoff phase as the
area under its curve from its first retry to its last, though its delays add up to 4800 s;
`policy_time_s` counts that way, so TideMQ accepts every policy SNS is known to accept.
"""

from __future__ import annotations

import enum
import itertools
from dataclasses import dataclass
from typing import Any

__all__ = ["BackoffFunction", "RetryPolicy", "policy_time_s", "retry_delay_s"]


class BackoffFunction(enum.Enum):
    LINEAR = "linear"
    ARITHMETIC = "arithmetic"
    GEOMETRIC = "geometric"
    EXPONENTIAL = "exponential"


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """A retry policy; the defaults are SNS's (three retries, 20 s apart)."""

    min_delay_s: int = 20
    max_delay_s: int = 20
    num_retries: int = 3
    num_no_delay_retries: int = 0
    num_min_delay_retries: int = 0
    num_max_delay_retries: int = 0
    backoff_function: BackoffFunction = BackoffFunction.LINEAR

    @property
    def num_backoff_retries(self) -> int:
        return (
            self.num_retries
            - self.num_no_delay_retries
            - self.num_min_delay_retries
            - self.num_max_delay_retries
        )

    def as_json(self) -> dict[str, Any]:
        """SNS's members, in the order SNS shows them."""
        return {
            "minDelayTarget": self.min_delay_s,
            "maxDelayTarget": self.max_delay_s,
            "numRetries": self.num_retries,
            "numMaxDelayRetries": self.num_max_delay_retries,
            "numNoDelayRetries": self.num_no_delay_retries,
            "numMinDelayRetries": self.num_min_delay_retries,
            "backoffFunction": self.backoff_function.value,
        }


def retry_delay_s(policy: RetryPolicy, attempt: int) -> float | None:
    """How long to wait before the next attempt once attempt number `attempt` (1: the
    first delivery) has failed; None once every retry of the policy is used."""
    retry = attempt  # the attempt after attempt k is retry k
    if retry < 1 or retry > policy.num_retries:
        return None
    if retry <= policy.num_no_delay_retries:
        return 0.0
    retry -= policy.num_no_delay_retries
    if retry <= policy.num_min_delay_retries:
        return float(policy.min_delay_s)
    retry -= policy.num_min_delay_retries
    if retry <= policy.num_backoff_retries:
        return _backoff_s(policy, retry - 1, policy.num_backoff_retries)
    return float(policy.max_delay_s)


def policy_time_s(policy: RetryPolicy) -> float:
    """How long the policy retries for, as SNS appears to count it against its hour."""
    n = policy.num_backoff_retries
    backoff = [_backoff_s(policy, i, n) for i in range(n)]
    area = sum((a + b) / 2 for a, b in itertools.pairwise(backoff))
    return (
        policy.num_min_delay_retries * policy.min_delay_s
        + area
        + policy.num_max_delay_retries * policy.max_delay_s
    )


def _backoff_s(policy: RetryPolicy, i: int, n: int) -> float:
    """The delay of retry i (from 0) of the n of the backoff phase."""
    low, high = float(policy.min_delay_s), float(policy.max_delay_s)
    if n == 1:
        return low
    function = policy.backoff_function
    if function is BackoffFunction.LINEAR:
        return low + (high - low) * i / (n - 1)
    if function is BackoffFunction.ARITHMETIC:
        return low + (high - low) * i * (i + 1) / (n * (n - 1))
    if function is BackoffFunction.GEOMETRIC:
        return low * float((high / low) ** (i / (n - 1)))
    return low + (high - low) * ((1 << i) - 1) / ((1 << (n - 1)) - 1)
