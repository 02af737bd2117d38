"""SNS's delivery policies for HTTP/S subscriptions: how often, how fast, and with what
Content-Type a notification is posted, and when its retries run out.

A topic's `DeliveryPolicy` holds the defaults of its HTTP/S subscriptions; a
subscription's own overrides them section by section, unless the topic sets
`disableSubscriptionOverrides`:

    topic         {"http": {"defaultHealthyRetryPolicy": R, "disableSubscriptionOverrides":
                  bool, "defaultThrottlePolicy": T, "defaultRequestPolicy": Q}}
    subscription  {"healthyRetryPolicy": R, "throttlePolicy": T, "requestPolicy": Q}

    R  {"minDelayTarget": s, "maxDelayTarget": s, "numRetries": n, "numNoDelayRetries": n,
        "numMinDelayRetries": n, "numMaxDelayRetries": n, "backoffFunction": name}
    T  {"maxReceivesPerSecond": n}
    Q  {"headerContentType": media type}

The retry policy's schedule, and how its length is counted against SNS's hour, are
gateway/core/retry_schedules.py's.

Validation errors are SNS's: `InvalidParameter`, "Invalid parameter: DeliveryPolicy: ...",
naming the member by its path (`healthyRetryPolicy.numRetries`,
`http.defaultHealthyRetryPolicy.numRetries`). minDelayTarget, maxDelayTarget and
numRetries are required in a retry policy, as SNS requires them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import orjson

from gateway.core.errors import CoreError
from gateway.core.retry_schedules import (
    BackoffFunction,
    RetryPolicy,
    policy_time_s,
    retry_delay_s,
)

__all__ = [
    "DEFAULT_CONTENT_TYPE",
    "DEFAULT_RETRY_POLICY",
    "BackoffFunction",
    "EffectiveDeliveryPolicy",
    "RetryPolicy",
    "SubscriptionDeliveryPolicy",
    "ThrottlePolicy",
    "TopicDeliveryPolicy",
    "effective_policy",
    "effective_topic_policy_json",
    "parse_subscription_policy",
    "parse_topic_policy",
    "retry_delay_s",
]

MAX_DELAY_S = 3600
MAX_RETRIES = 100
MAX_POLICY_TIME_S = 3600  # retry_schedules.policy_time_s
DEFAULT_CONTENT_TYPE = "text/plain; charset=UTF-8"
# The media types SNS posts with; parameters (`; charset=UTF-8`) may follow.
CONTENT_TYPES = frozenset(
    {
        "application/atom+xml",
        "application/json",
        "application/octet-stream",
        "application/soap+xml",
        "application/x-www-form-urlencoded",
        "application/xhtml+xml",
        "application/xml",
        "multipart/mixed",
        "text/css",
        "text/csv",
        "text/html",
        "text/plain",
        "text/xml",
    }
)
_SUBSCRIPTION_MEMBERS = frozenset(
    {"healthyRetryPolicy", "sicklyRetryPolicy", "throttlePolicy", "requestPolicy", "guaranteed"}
)
_TOPIC_HTTP_MEMBERS = frozenset(
    {
        "defaultHealthyRetryPolicy",
        "defaultSicklyRetryPolicy",
        "disableSubscriptionOverrides",
        "defaultThrottlePolicy",
        "defaultRequestPolicy",
    }
)
_HEADER_VALUE = re.compile(r"[\x20-\x7e]+")  # printable ASCII: no line breaks to inject
DEFAULT_RETRY_POLICY = RetryPolicy()
_RETRY_MEMBERS = frozenset(DEFAULT_RETRY_POLICY.as_json())


@dataclass(frozen=True, slots=True)
class ThrottlePolicy:
    max_receives_per_second: int


@dataclass(frozen=True, slots=True)
class SubscriptionDeliveryPolicy:
    """A subscription's DeliveryPolicy: the sections it sets (None: the topic's)."""

    retry: RetryPolicy | None
    throttle: ThrottlePolicy | None
    content_type: str | None
    text: str  # as SNS gives it back: its members in SNS's order, absent ones null


@dataclass(frozen=True, slots=True)
class TopicDeliveryPolicy:
    """A topic's DeliveryPolicy: the defaults of its HTTP/S subscriptions."""

    retry: RetryPolicy | None
    throttle: ThrottlePolicy | None
    content_type: str | None
    disable_subscription_overrides: bool
    text: str  # as SNS gives it back


@dataclass(frozen=True, slots=True)
class EffectiveDeliveryPolicy:
    """What a subscription's deliveries follow."""

    retry: RetryPolicy
    throttle: ThrottlePolicy | None
    content_type: str

    def to_json(self) -> str:
        """The subscription's `EffectiveDeliveryPolicy` attribute."""
        throttle = self.throttle
        return orjson.dumps(
            {
                "healthyRetryPolicy": self.retry.as_json(),
                "sicklyRetryPolicy": None,
                "throttlePolicy": (
                    None if throttle is None else _throttle_json(throttle.max_receives_per_second)
                ),
                "requestPolicy": {"headerContentType": self.content_type},
                "guaranteed": False,
            }
        ).decode()


def parse_subscription_policy(text: str) -> SubscriptionDeliveryPolicy:
    """The subscription's DeliveryPolicy attribute; CoreError (InvalidParameter) if bad.
    (An empty attribute is no policy: the caller unsets it instead.)"""
    document = _object(_json(text), "the policy")
    _members(document, _SUBSCRIPTION_MEMBERS)
    retry, retry_json = _retry(document.get("healthyRetryPolicy"), "healthyRetryPolicy")
    # Kept and shown as given, as SNS does, and used by neither: SNS has no sick state.
    _, sickly_json = _retry(document.get("sicklyRetryPolicy"), "sicklyRetryPolicy")
    throttle = _throttle(document.get("throttlePolicy"), "throttlePolicy")
    content_type = _content_type(document.get("requestPolicy"), "requestPolicy")
    guaranteed = _boolean(document.get("guaranteed"), "guaranteed")
    stored: dict[str, Any] = {
        "healthyRetryPolicy": retry_json,
        "sicklyRetryPolicy": sickly_json,
        "throttlePolicy": None
        if throttle is None
        else _throttle_json(throttle.max_receives_per_second),
    }
    if content_type is not None:
        stored["requestPolicy"] = {"headerContentType": content_type}
    stored["guaranteed"] = bool(guaranteed)
    return SubscriptionDeliveryPolicy(retry, throttle, content_type, orjson.dumps(stored).decode())


def parse_topic_policy(text: str) -> TopicDeliveryPolicy:
    """The topic's DeliveryPolicy attribute; CoreError (InvalidParameter) if bad.
    (An empty attribute is no policy: the caller unsets it instead.)"""
    document = _object(_json(text), "the policy")
    _members(document, frozenset({"http"}))
    if document.get("http") is None:
        return TopicDeliveryPolicy(None, None, None, False, "{}")
    http = _object(document["http"], "http")
    _members(http, _TOPIC_HTTP_MEMBERS)
    path = "http.defaultHealthyRetryPolicy"
    retry, retry_json = _retry(http.get("defaultHealthyRetryPolicy"), path)
    _, sickly_json = _retry(http.get("defaultSicklyRetryPolicy"), "http.defaultSicklyRetryPolicy")
    disable = bool(
        _boolean(http.get("disableSubscriptionOverrides"), "http.disableSubscriptionOverrides")
    )
    throttle = _throttle(http.get("defaultThrottlePolicy"), "http.defaultThrottlePolicy")
    content_type = _content_type(http.get("defaultRequestPolicy"), "http.defaultRequestPolicy")
    # The sections given, in SNS's order; one left out stays out.
    stored: dict[str, Any] = {}
    if retry_json is not None:
        stored["defaultHealthyRetryPolicy"] = retry_json
    if sickly_json is not None:
        stored["defaultSicklyRetryPolicy"] = sickly_json
    stored["disableSubscriptionOverrides"] = disable
    if throttle is not None:
        stored["defaultThrottlePolicy"] = _throttle_json(throttle.max_receives_per_second)
    if content_type is not None:
        stored["defaultRequestPolicy"] = {"headerContentType": content_type}
    return TopicDeliveryPolicy(
        retry, throttle, content_type, disable, orjson.dumps({"http": stored}).decode()
    )


def effective_policy(
    topic: TopicDeliveryPolicy | None, subscription: SubscriptionDeliveryPolicy | None
) -> EffectiveDeliveryPolicy:
    """A subscription's policy: each section from the subscription if it sets it (and the
    topic allows overrides), else the topic's default, else SNS's."""
    if topic is not None and topic.disable_subscription_overrides:
        subscription = None
    policies = [p for p in (subscription, topic) if p is not None]  # the subscription's first
    return EffectiveDeliveryPolicy(
        retry=next((p.retry for p in policies if p.retry), DEFAULT_RETRY_POLICY),
        throttle=next((p.throttle for p in policies if p.throttle), None),
        content_type=next(
            (p.content_type for p in policies if p.content_type), DEFAULT_CONTENT_TYPE
        ),
    )


def effective_topic_policy_json(topic: TopicDeliveryPolicy | None) -> str:
    """The topic's `EffectiveDeliveryPolicy` attribute: its policy with SNS's defaults."""
    effective = effective_policy(topic, None)
    http: dict[str, Any] = {
        "defaultHealthyRetryPolicy": effective.retry.as_json(),
        "disableSubscriptionOverrides": topic is not None and topic.disable_subscription_overrides,
    }
    if effective.throttle is not None:
        http["defaultThrottlePolicy"] = _throttle_json(effective.throttle.max_receives_per_second)
    http["defaultRequestPolicy"] = {"headerContentType": effective.content_type}
    return orjson.dumps({"http": http}).decode()


def _invalid(detail: str) -> CoreError:
    return CoreError("InvalidParameter", f"Invalid parameter: DeliveryPolicy: {detail}")


def _json(text: str) -> object:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise _invalid(f"failed to parse JSON. {exc}") from exc


def _object(value: object, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _invalid(f"{path} must be a JSON object")
    return value


def _members(document: dict[str, Any], allowed: frozenset[str]) -> None:
    for name in document:
        if name not in allowed:
            raise _invalid(f"Unexpected JSON member: {name}")


def _required(document: dict[str, Any], name: str, path: str) -> int:
    value = _optional(document, name, path)
    if value is None:
        raise _invalid(f"{path}.{name} must be specified")
    return value


def _optional(document: dict[str, Any], name: str, path: str) -> int | None:
    value = document.get(name)
    if value is None:
        return None
    # A JSON number with no fraction (5 or 5.0), as SNS's JSON reader takes it.
    if isinstance(value, bool) or not (
        isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    ):
        raise _invalid(f"{path}.{name} must be an integer")
    return int(value)


def _at_least(value: int | None, least: int, path: str) -> None:
    if value is not None and value < least:
        raise _invalid(f"{path} must be greater than or equal to {least}")


def _at_most(value: int | None, most: int, path: str) -> None:
    if value is not None and value > most:
        raise _invalid(f"{path} must be less than or equal to {most}")


def _retry(value: object, path: str) -> tuple[RetryPolicy | None, dict[str, Any] | None]:
    """The retry policy, and its stored form (members not given are null, as SNS's)."""
    if value is None:
        return None, None
    document = _object(value, path)
    _members(document, _RETRY_MEMBERS)
    low = _required(document, "minDelayTarget", path)
    high = _required(document, "maxDelayTarget", path)
    retries = _required(document, "numRetries", path)
    phases = {
        name: _optional(document, name, path)
        for name in ("numMaxDelayRetries", "numNoDelayRetries", "numMinDelayRetries")
    }
    backoff = _backoff_function(document.get("backoffFunction"), path)
    _at_least(low, 1, f"{path}.minDelayTarget")
    _at_most(high, MAX_DELAY_S, f"{path}.maxDelayTarget")
    if low > high:
        raise _invalid(f"{path}.maxDelayTarget must be greater than or equal to minDelayTarget")
    _at_least(retries, 0, f"{path}.numRetries")
    _at_most(retries, MAX_RETRIES, f"{path}.numRetries")
    for name, count in phases.items():
        _at_least(count, 0, f"{path}.{name}")
    if sum(count or 0 for count in phases.values()) > retries:
        raise _invalid(
            f"{path}.numRetries must be greater than or equal to total of numMinDelayRetries, "
            "numNoDelayRetries and numMaxDelayRetries"
        )
    policy = RetryPolicy(
        min_delay_s=low,
        max_delay_s=high,
        num_retries=retries,
        num_no_delay_retries=phases["numNoDelayRetries"] or 0,
        num_min_delay_retries=phases["numMinDelayRetries"] or 0,
        num_max_delay_retries=phases["numMaxDelayRetries"] or 0,
        backoff_function=backoff or BackoffFunction.LINEAR,
    )
    time_s = policy_time_s(policy)
    if time_s > MAX_POLICY_TIME_S:
        raise _invalid(
            f"{path} retries for {math.ceil(time_s)} seconds, "
            f"more than the {MAX_POLICY_TIME_S} seconds allowed"
        )
    stored = {
        "minDelayTarget": low,
        "maxDelayTarget": high,
        "numRetries": retries,
        **phases,
        "backoffFunction": None if backoff is None else backoff.value,
    }
    return policy, stored


def _backoff_function(value: object, path: str) -> BackoffFunction | None:
    if value is None:
        return None
    try:  # any case: SDKs such as the CDK send "EXPONENTIAL"
        return BackoffFunction(value.lower() if isinstance(value, str) else value)
    except ValueError:
        raise _invalid(
            f"{path}.backoffFunction must be one of: linear, arithmetic, geometric, exponential"
        ) from None


def _throttle(value: object, path: str) -> ThrottlePolicy | None:
    if value is None:
        return None
    document = _object(value, path)
    _members(document, frozenset({"maxReceivesPerSecond"}))
    rate = _required(document, "maxReceivesPerSecond", path)
    _at_least(rate, 1, f"{path}.maxReceivesPerSecond")
    return ThrottlePolicy(rate)


def _throttle_json(max_receives_per_second: int) -> dict[str, int]:
    return {"maxReceivesPerSecond": max_receives_per_second}


def _content_type(value: object, path: str) -> str | None:
    if value is None:
        return None
    document = _object(value, path)
    _members(document, frozenset({"headerContentType"}))
    content_type = document.get("headerContentType")
    if content_type is None:
        raise _invalid(f"{path}.headerContentType must be specified")
    if (
        not isinstance(content_type, str)
        or not _HEADER_VALUE.fullmatch(content_type)
        or content_type.split(";")[0].strip().lower() not in CONTENT_TYPES
    ):
        raise _invalid(f"{path}.headerContentType is not a supported content type")
    return content_type


def _boolean(value: object, path: str) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise _invalid(f"{path} must be a boolean")
    return value
