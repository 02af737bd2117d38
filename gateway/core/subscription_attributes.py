"""A subscription's attributes, checked as SNS checks them, and shown as SNS shows them.

Stored as given once checked (control_plane/subscriptions.py). The filter policy and the
delivery policy are checked by their own modules; parsed forms are kept by the
dispatcher, not here.

Pull subscriptions (TideMQ's own protocol) have two of their own, as a queue would:
`VisibilityTimeout` (seconds, 0-43200, default 30) and a RedrivePolicy with SQS's
`maxReceiveCount` (1-1000) beside `deadLetterTargetArn`, since they count receives as a
queue does; SNS's RedrivePolicy for the pushed protocols has the ARN only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from control_plane.arns import parse_queue_arn
from control_plane.queue_attributes import MAX_RECEIVE_COUNT, RedrivePolicy
from control_plane.subscriptions import SubscriptionInfo
from gateway.core import delivery_policies
from gateway.core.filter_policies import parse_filter_policy
from gateway.core.topic_attributes import invalid

SETTABLE = frozenset(
    {
        "DeliveryPolicy",
        "FilterPolicy",
        "FilterPolicyScope",
        "RawMessageDelivery",
        "RedrivePolicy",
        "SubscriptionRoleArn",
        "ReplayPolicy",
        "VisibilityTimeout",
    }
)
# Pull subscriptions always get the message as published: there is no envelope to leave out.
_RAW_PROTOCOLS = frozenset({"sqs", "http", "https"})
_WEBHOOKS = frozenset({"http", "https"})
PULL = "pull"
DEFAULT_VISIBILITY_TIMEOUT_S = 30
MAX_VISIBILITY_TIMEOUT_S = 43_200


def check_all(attributes: Mapping[str, str], protocol: str) -> dict[str, str]:
    """The attributes a new subscription is stored with; InvalidParameter for any SNS
    would refuse."""
    checked: dict[str, str] = {}
    for name, value in attributes.items():
        checked[name] = _checked(name, value, protocol)
    _check_filter(checked)
    return {k: v for k, v in checked.items() if v != ""}


def with_changes(subscription: SubscriptionInfo, changes: Mapping[str, str]) -> dict[str, str]:
    """The subscription's attributes once every change is made ("" removes one)."""
    merged = dict(subscription.attributes)
    for name, value in changes.items():
        merged[name] = _checked(name, value, subscription.protocol)
    _check_filter(merged)
    return {k: v for k, v in merged.items() if v != ""}


def shown(subscription: SubscriptionInfo, topic_policy: str | None) -> dict[str, str]:
    """What GetSubscriptionAttributes answers (`topic_policy`: the topic's DeliveryPolicy)."""
    attributes = {
        "SubscriptionArn": subscription.arn,
        "TopicArn": subscription.topic_arn,
        "Owner": subscription.owner,
        "Protocol": subscription.protocol,
        "Endpoint": subscription.endpoint,
        "ConfirmationWasAuthenticated": "false" if subscription.pending else "true",
        "PendingConfirmation": "true" if subscription.pending else "false",
        "RawMessageDelivery": "false",
        "SubscriptionPrincipal": f"arn:aws:iam::{subscription.owner}:root",
    }
    attributes.update(subscription.attributes)
    if "FilterPolicy" in subscription.attributes:
        attributes.setdefault("FilterPolicyScope", "MessageAttributes")
    else:
        attributes.pop("FilterPolicyScope", None)
    if subscription.protocol in _WEBHOOKS:
        attributes["EffectiveDeliveryPolicy"] = effective_policy(
            subscription, topic_policy
        ).to_json()
    if subscription.protocol == PULL:
        del attributes["RawMessageDelivery"]
        attributes.setdefault("VisibilityTimeout", str(DEFAULT_VISIBILITY_TIMEOUT_S))
    return attributes


def effective_policy(
    subscription: SubscriptionInfo, topic_policy: str | None
) -> delivery_policies.EffectiveDeliveryPolicy:
    """What the subscription's webhook deliveries follow (its policy over its topic's)."""
    own = subscription.attributes.get("DeliveryPolicy")
    return delivery_policies.effective_policy(
        delivery_policies.parse_topic_policy(topic_policy) if topic_policy else None,
        delivery_policies.parse_subscription_policy(own) if own else None,
    )


def effective_topic_delivery_policy(topic_policy: str | None) -> str:
    parsed = delivery_policies.parse_topic_policy(topic_policy) if topic_policy else None
    return delivery_policies.effective_topic_policy_json(parsed)


def _checked(name: str, value: str, protocol: str) -> str:
    if name not in SETTABLE:
        raise invalid("AttributeName")
    if name == "RawMessageDelivery":
        if value.lower() not in ("true", "false"):
            raise invalid(
                "Attributes Reason: RawMessageDelivery: Invalid value. Must be true or false."
            )
        if protocol not in _RAW_PROTOCOLS:
            raise invalid(
                "Attributes Reason: RawMessageDelivery: Invalid value. Delivery protocol "
                f"[{protocol}] does not support raw message delivery."
            )
        return value.lower()
    if name == "FilterPolicyScope":
        if value not in ("MessageAttributes", "MessageBody"):
            raise invalid(
                "Attributes Reason: FilterPolicyScope: Invalid value "
                f"[{value}]. Please use either MessageBody or MessageAttributes"
            )
        return value
    if name == "RedrivePolicy" and value:
        return _checked_redrive(value, protocol)
    if name == "VisibilityTimeout":
        return _checked_visibility_timeout(value, protocol)
    if name == "DeliveryPolicy" and value:
        if protocol not in _WEBHOOKS:
            raise invalid("DeliveryPolicy: only HTTP and HTTPS subscriptions have one")
        return delivery_policies.parse_subscription_policy(value).text
    return value


def _check_filter(attributes: Mapping[str, str]) -> None:
    policy = attributes.get("FilterPolicy")
    if policy:
        parse_filter_policy(policy, attributes.get("FilterPolicyScope") or "MessageAttributes")


def _checked_redrive(value: str, protocol: str) -> str:
    try:
        document: Any = orjson.loads(value)
    except orjson.JSONDecodeError:
        raise invalid("RedrivePolicy: Redrive policy is not a valid JSON") from None
    keys = (
        {"deadLetterTargetArn", "maxReceiveCount"} if protocol == PULL else {"deadLetterTargetArn"}
    )
    if not isinstance(document, dict) or set(document) != keys:
        raise invalid(
            "RedrivePolicy: Redrive policy must have exactly " + " and ".join(sorted(keys))
        )
    target = document["deadLetterTargetArn"]
    queue = parse_queue_arn(target) if isinstance(target, str) else None
    if queue is None:
        raise invalid("RedrivePolicy: deadLetterTargetArn is an invalid arn")
    if protocol != PULL:
        return value
    if queue[1].endswith(".fifo"):
        raise invalid(
            "RedrivePolicy: the dead-letter queue of a pull subscription must be a standard "
            "queue, as its topic is"
        )
    count = _integer(document["maxReceiveCount"])
    if count is None or not MAX_RECEIVE_COUNT.low <= count <= MAX_RECEIVE_COUNT.high:
        raise invalid(
            f"RedrivePolicy: maxReceiveCount must be an integer from {MAX_RECEIVE_COUNT.low} "
            f"to {MAX_RECEIVE_COUNT.high}"
        )
    return orjson.dumps({"deadLetterTargetArn": target, "maxReceiveCount": count}).decode()


def _checked_visibility_timeout(value: str, protocol: str) -> str:
    if protocol != PULL:
        raise invalid("VisibilityTimeout: only pull subscriptions have one")
    if value == "":
        return value  # removed: back to the default
    seconds = _integer(value)
    if seconds is None or not 0 <= seconds <= MAX_VISIBILITY_TIMEOUT_S:
        raise invalid(
            f"VisibilityTimeout: must be an integer from 0 to {MAX_VISIBILITY_TIMEOUT_S} seconds"
        )
    return str(seconds)


def _integer(value: object) -> int | None:
    """An integer given as a JSON number or as its decimal text (SQS takes both)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 9:
        return int(value)
    return None


def redrive_target(subscription: SubscriptionInfo) -> str | None:
    """The ARN of the subscription's dead-letter queue, if it has one."""
    value = subscription.attributes.get("RedrivePolicy")
    if not value:
        return None
    target: str = orjson.loads(value)["deadLetterTargetArn"]
    return target


def pull_redrive(subscription: SubscriptionInfo) -> RedrivePolicy | None:
    """A pull subscription's dead-letter queue and how many receives lead there."""
    value = subscription.attributes.get("RedrivePolicy")
    if not value:
        return None
    document = orjson.loads(value)
    target = parse_queue_arn(document["deadLetterTargetArn"])
    assert target is not None, "checked when it was set"
    return RedrivePolicy(target[0], target[1], int(document["maxReceiveCount"]))


def visibility_timeout_ms(subscription: SubscriptionInfo) -> int:
    """A pull subscription's VisibilityTimeout."""
    seconds = subscription.attributes.get("VisibilityTimeout")
    return (DEFAULT_VISIBILITY_TIMEOUT_S if seconds is None else int(seconds)) * 1000
