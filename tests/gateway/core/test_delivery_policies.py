"""Delivery policies: SNS's shapes, bounds, error texts and defaults, and how a topic's and a
subscription's combine."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gateway.core.delivery_policies import (
    BackoffFunction,
    RetryPolicy,
    ThrottlePolicy,
    effective_policy,
    effective_topic_policy_json,
    parse_subscription_policy,
    parse_topic_policy,
)
from gateway.core.errors import CoreError, ErrorKind

# What SNS answers for a topic with no DeliveryPolicy (recorded from AWS).
SNS_DEFAULT_TOPIC_EFFECTIVE = (
    '{"http":{"defaultHealthyRetryPolicy":{"minDelayTarget":20,"maxDelayTarget":20,'
    '"numRetries":3,"numMaxDelayRetries":0,"numNoDelayRetries":0,"numMinDelayRetries":0,'
    '"backoffFunction":"linear"},"disableSubscriptionOverrides":false,'
    '"defaultRequestPolicy":{"headerContentType":"text/plain; charset=UTF-8"}}}'
)
# SNS's example: 3 at once, 2 a second apart, 10 backing off to 60 s, 35 a minute apart.
SNS_EXAMPLE = {
    "healthyRetryPolicy": {
        "minDelayTarget": 1,
        "maxDelayTarget": 60,
        "numRetries": 50,
        "numNoDelayRetries": 3,
        "numMinDelayRetries": 2,
        "numMaxDelayRetries": 35,
        "backoffFunction": "exponential",
    },
    "throttlePolicy": {"maxReceivesPerSecond": 10},
}


def retry(**changes: Any) -> dict[str, Any]:
    return {"minDelayTarget": 20, "maxDelayTarget": 20, "numRetries": 3} | changes


def subscription_error(policy: object) -> str:
    with pytest.raises(CoreError) as caught:
        parse_subscription_policy(policy if isinstance(policy, str) else json.dumps(policy))
    assert caught.value.code == "InvalidParameter"
    assert caught.value.kind is ErrorKind.INVALID
    return caught.value.message


def topic_error(policy: object) -> str:
    with pytest.raises(CoreError) as caught:
        parse_topic_policy(json.dumps(policy))
    assert caught.value.code == "InvalidParameter"
    return caught.value.message


def test_with_no_policy_the_effective_ones_are_snss_defaults() -> None:
    assert effective_topic_policy_json(None) == SNS_DEFAULT_TOPIC_EFFECTIVE
    assert effective_topic_policy_json(parse_topic_policy("{}")) == SNS_DEFAULT_TOPIC_EFFECTIVE
    effective = effective_policy(None, None)
    assert effective.retry == RetryPolicy()
    assert json.loads(effective.to_json()) == {
        "healthyRetryPolicy": json.loads(SNS_DEFAULT_TOPIC_EFFECTIVE)["http"][
            "defaultHealthyRetryPolicy"
        ],
        "sicklyRetryPolicy": None,
        "throttlePolicy": None,
        "requestPolicy": {"headerContentType": "text/plain; charset=UTF-8"},
        "guaranteed": False,
    }


def test_snss_example_subscription_policy() -> None:
    policy = parse_subscription_policy(json.dumps(SNS_EXAMPLE))
    assert policy.retry == RetryPolicy(
        min_delay_s=1,
        max_delay_s=60,
        num_retries=50,
        num_no_delay_retries=3,
        num_min_delay_retries=2,
        num_max_delay_retries=35,
        backoff_function=BackoffFunction.EXPONENTIAL,
    )
    assert policy.throttle == ThrottlePolicy(10)
    assert policy.content_type is None


def test_a_subscription_policy_is_given_back_as_sns_stores_it() -> None:
    # SNS's answer to {"healthyRetryPolicy":{"maxDelayTarget":20,"minDelayTarget":5,
    # "numRetries":5}}: its members in SNS's order, those not given null.
    stored = parse_subscription_policy(
        '{"healthyRetryPolicy":{"maxDelayTarget":20,"minDelayTarget":5,"numRetries":5}}'
    ).text
    assert stored == (
        '{"healthyRetryPolicy":{"minDelayTarget":5,"maxDelayTarget":20,"numRetries":5,'
        '"numMaxDelayRetries":null,"numNoDelayRetries":null,"numMinDelayRetries":null,'
        '"backoffFunction":null},"sicklyRetryPolicy":null,"throttlePolicy":null,'
        '"guaranteed":false}'
    )
    # What SNS gives back is taken back unchanged (tools send it again as they read it).
    assert parse_subscription_policy(stored).text == stored
    with_request = parse_subscription_policy(
        json.dumps(SNS_EXAMPLE | {"requestPolicy": {"headerContentType": "application/json"}})
    ).text
    assert list(json.loads(with_request)) == [
        "healthyRetryPolicy",
        "sicklyRetryPolicy",
        "throttlePolicy",
        "requestPolicy",
        "guaranteed",
    ]
    assert parse_subscription_policy(with_request).text == with_request


def test_a_topic_policy_is_given_back_in_snss_order_with_only_its_sections() -> None:
    text = json.dumps(
        {
            "http": {
                "defaultThrottlePolicy": {"maxReceivesPerSecond": 1},
                "defaultHealthyRetryPolicy": retry(backoffFunction="linear"),
            }
        }
    )
    stored = parse_topic_policy(text).text
    assert stored == (
        '{"http":{"defaultHealthyRetryPolicy":{"minDelayTarget":20,"maxDelayTarget":20,'
        '"numRetries":3,"numMaxDelayRetries":null,"numNoDelayRetries":null,'
        '"numMinDelayRetries":null,"backoffFunction":"linear"},'
        '"disableSubscriptionOverrides":false,"defaultThrottlePolicy":{"maxReceivesPerSecond":1}}}'
    )
    assert parse_topic_policy(stored).text == stored


def test_the_subscription_overrides_the_topic_section_by_section() -> None:
    topic = parse_topic_policy(
        json.dumps(
            {
                "http": {
                    "defaultHealthyRetryPolicy": retry(numRetries=7),
                    "defaultThrottlePolicy": {"maxReceivesPerSecond": 5},
                    "defaultRequestPolicy": {"headerContentType": "application/json"},
                }
            }
        )
    )
    subscription = parse_subscription_policy(
        json.dumps({"healthyRetryPolicy": retry(numRetries=9)})
    )
    effective = effective_policy(topic, subscription)
    assert effective.retry.num_retries == 9
    assert effective.throttle == ThrottlePolicy(5)
    assert effective.content_type == "application/json"
    assert effective_policy(topic, None).retry.num_retries == 7
    assert json.loads(effective_topic_policy_json(topic))["http"]["defaultThrottlePolicy"] == {
        "maxReceivesPerSecond": 5
    }


def test_disable_subscription_overrides_makes_the_topics_policy_apply_to_all() -> None:
    topic = parse_topic_policy(
        json.dumps(
            {
                "http": {
                    "defaultHealthyRetryPolicy": retry(numRetries=7),
                    "disableSubscriptionOverrides": True,
                }
            }
        )
    )
    subscription = parse_subscription_policy(
        json.dumps(
            {
                "healthyRetryPolicy": retry(numRetries=9),
                "requestPolicy": {"headerContentType": "application/json"},
            }
        )
    )
    effective = effective_policy(topic, subscription)
    assert effective.retry.num_retries == 7
    assert effective.content_type == "text/plain; charset=UTF-8"
    assert '"disableSubscriptionOverrides":true' in effective_topic_policy_json(topic)


def test_accepted_spellings() -> None:
    # The CDK sends its enum's upper-case names; nulls are members not given; 5.0 is 5.
    policy = parse_subscription_policy(
        json.dumps(
            {
                "healthyRetryPolicy": retry(
                    numRetries=5.0, backoffFunction="EXPONENTIAL", numMaxDelayRetries=None
                ),
                "sicklyRetryPolicy": None,
                "throttlePolicy": None,
                "guaranteed": False,
            }
        )
    )
    assert policy.retry == RetryPolicy(num_retries=5, backoff_function=BackoffFunction.EXPONENTIAL)
    assert '"backoffFunction":"exponential"' in policy.text
    for content_type in ("application/json", "text/plain; charset=UTF-8", "TEXT/CSV"):
        parsed = parse_subscription_policy(
            json.dumps({"requestPolicy": {"headerContentType": content_type}})
        )
        assert parsed.content_type == content_type


def test_the_hour_limit_accepts_what_sns_accepts() -> None:
    def policy(max_delay_s: int) -> dict[str, Any]:
        return {
            "http": {
                "defaultHealthyRetryPolicy": {
                    "minDelayTarget": 1,
                    "maxDelayTarget": max_delay_s,
                    "numRetries": 5,
                    "numNoDelayRetries": 1,
                    "backoffFunction": "linear",
                }
            }
        }

    assert parse_topic_policy(json.dumps(policy(2399))).retry is not None
    assert topic_error(policy(2400)) == (
        "Invalid parameter: DeliveryPolicy: http.defaultHealthyRetryPolicy retries for 3602 "
        "seconds, more than the 3600 seconds allowed"
    )


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        # Texts AWS gives, word for word.
        (
            {"healthyRetryPolicy": retry(minDelayTarget=0, maxDelayTarget=0)},
            "healthyRetryPolicy.minDelayTarget must be greater than or equal to 1",
        ),
        (
            {"healthyRetryPolicy": {"maxDelayTarget": 20, "numRetries": 3}},
            "healthyRetryPolicy.minDelayTarget must be specified",
        ),
        (
            {"healthyRetryPolicy": {"minDelayTarget": 20, "numRetries": 3}},
            "healthyRetryPolicy.maxDelayTarget must be specified",
        ),
        (
            {"healthyRetryPolicy": {"minDelayTarget": 20, "maxDelayTarget": 20}},
            "healthyRetryPolicy.numRetries must be specified",
        ),
        (
            {"healthyRetryPolicy": retry(numRetries=101)},
            "healthyRetryPolicy.numRetries must be less than or equal to 100",
        ),
        (
            {"healthyRetryPolicy": retry(numRetries=-1)},
            "healthyRetryPolicy.numRetries must be greater than or equal to 0",
        ),
        (
            {"healthyRetryPolicy": retry(maxDelayTarget=3601)},
            "healthyRetryPolicy.maxDelayTarget must be less than or equal to 3600",
        ),
        (
            {"healthyRetryPolicy": retry(minDelayTarget=30)},
            "healthyRetryPolicy.maxDelayTarget must be greater than or equal to minDelayTarget",
        ),
        (
            {"healthyRetryPolicy": retry(numNoDelayRetries=-1)},
            "healthyRetryPolicy.numNoDelayRetries must be greater than or equal to 0",
        ),
        (
            {"healthyRetryPolicy": retry(numNoDelayRetries=2, numMaxDelayRetries=2)},
            "healthyRetryPolicy.numRetries must be greater than or equal to total of "
            "numMinDelayRetries, numNoDelayRetries and numMaxDelayRetries",
        ),
        (
            {"healthyRetryPolicy": retry(backoffFunction="cubic")},
            "healthyRetryPolicy.backoffFunction must be one of: linear, arithmetic, "
            "geometric, exponential",
        ),
        (
            {"healthyRetryPolicy": retry(backoffFunction=["linear"])},
            "healthyRetryPolicy.backoffFunction must be one of: linear, arithmetic, "
            "geometric, exponential",
        ),
        (
            {"healthyRetryPolicy": retry(numRetries="3")},
            "healthyRetryPolicy.numRetries must be an integer",
        ),
        (
            {"healthyRetryPolicy": retry(numRetries=3.5)},
            "healthyRetryPolicy.numRetries must be an integer",
        ),
        (
            {"healthyRetryPolicy": retry(numRetries=True)},
            "healthyRetryPolicy.numRetries must be an integer",
        ),
        (
            {"healthyRetryPolicy": retry(retries=3)},
            "Unexpected JSON member: retries",
        ),
        ({"healthyRetryPolicy": "fast"}, "healthyRetryPolicy must be a JSON object"),
        (
            {"throttlePolicy": {"maxReceivesPerSecond": 0}},
            "throttlePolicy.maxReceivesPerSecond must be greater than or equal to 1",
        ),
        ({"throttlePolicy": {}}, "throttlePolicy.maxReceivesPerSecond must be specified"),
        (
            {"requestPolicy": {"headerContentType": "text/bogus"}},
            "requestPolicy.headerContentType is not a supported content type",
        ),
        (
            {"requestPolicy": {"headerContentType": "text/plain\r\nX-Injected: yes"}},
            "requestPolicy.headerContentType is not a supported content type",
        ),
        (
            {"requestPolicy": {"headerContentType": 5}},
            "requestPolicy.headerContentType is not a supported content type",
        ),
        ({"requestPolicy": {}}, "requestPolicy.headerContentType must be specified"),
        ({"guaranteed": "yes"}, "guaranteed must be a boolean"),
        ({"http": {}}, "Unexpected JSON member: http"),
        ([SNS_EXAMPLE], "the policy must be a JSON object"),
    ],
)
def test_subscription_policies_sns_refuses(policy: object, message: str) -> None:
    assert subscription_error(policy) == f"Invalid parameter: DeliveryPolicy: {message}"


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        # Texts AWS gives, word for word.
        (
            {"http": {"defaultHealthyRetryPolicy": retry(numRetries=101)}},
            "http.defaultHealthyRetryPolicy.numRetries must be less than or equal to 100",
        ),
        ({"throttlePolicy": {"maxReceivesPerSecond": 1}}, "Unexpected JSON member: throttlePolicy"),
        (
            {"http": {"throttlePolicy": {"maxReceivesPerSecond": 1}}},
            "Unexpected JSON member: throttlePolicy",
        ),
        (
            {"http": {"disableSubscriptionOverrides": "true"}},
            "http.disableSubscriptionOverrides must be a boolean",
        ),
        (
            {"http": {"defaultThrottlePolicy": {"maxReceivesPerSecond": -2}}},
            "http.defaultThrottlePolicy.maxReceivesPerSecond must be greater than or equal to 1",
        ),
        (
            {"http": {"defaultRequestPolicy": {"headerContentType": "image/png"}}},
            "http.defaultRequestPolicy.headerContentType is not a supported content type",
        ),
        ({"http": []}, "http must be a JSON object"),
    ],
)
def test_topic_policies_sns_refuses(policy: object, message: str) -> None:
    assert topic_error(policy) == f"Invalid parameter: DeliveryPolicy: {message}"


def test_text_that_is_not_json_is_refused() -> None:
    assert subscription_error("{not json").startswith(
        "Invalid parameter: DeliveryPolicy: failed to parse JSON."
    )
    with pytest.raises(CoreError, match="failed to parse JSON"):
        parse_topic_policy("")
