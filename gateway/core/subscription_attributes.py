"""A subscription's attributes, checked as SNS checks them, and shown as SNS shows them.

Stored as given once checked (control_plane/subscriptions.py). The filter policy and the
delivery policy are checked by their own modules; parsed forms are kept by the
dispatcher, not here.
"""

from __future__ import annotations

from collections.abc import Mapping

import orjson

from control_plane.arns import parse_queue_arn
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
    }
)
_RAW_PROTOCOLS = frozenset({"sqs", "http", "https", "pull"})
_WEBHOOKS = frozenset({"http", "https"})


def check_all(attributes: Mapping[str, str], protocol: str) -> dict[str, str]:
    """The attributes a new subscription is stored with; InvalidParameter for any SNS
    would refuse."""
    checked: dict[str, str] = {}
    for name, value in attributes.items():
        checked[name] = _checked(name, value, protocol)
    _check_filter(checked)
    return {k: v for k, v in checked.items() if v != ""}


def with_change(subscription: SubscriptionInfo, name: str, value: str) -> dict[str, str]:
    """The subscription's attributes once `name` is set to `value` ("" removes it)."""
    merged = dict(subscription.attributes)
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
        _check_redrive(value)
    if name == "DeliveryPolicy" and value:
        if protocol not in _WEBHOOKS:
            raise invalid("DeliveryPolicy: only HTTP and HTTPS subscriptions have one")
        return delivery_policies.parse_subscription_policy(value).text
    return value


def _check_filter(attributes: Mapping[str, str]) -> None:
    policy = attributes.get("FilterPolicy")
    if policy:
        parse_filter_policy(policy, attributes.get("FilterPolicyScope") or "MessageAttributes")


def _check_redrive(value: str) -> None:
    try:
        document = orjson.loads(value)
    except orjson.JSONDecodeError:
        raise invalid("RedrivePolicy: Redrive policy is not a valid JSON") from None
    if not isinstance(document, dict) or set(document) != {"deadLetterTargetArn"}:
        raise invalid("RedrivePolicy: Redrive policy must have exactly deadLetterTargetArn")
    target = document["deadLetterTargetArn"]
    if not isinstance(target, str) or parse_queue_arn(target) is None:
        raise invalid("RedrivePolicy: deadLetterTargetArn is an invalid arn")


def redrive_target(subscription: SubscriptionInfo) -> tuple[str, str] | None:
    """(account id, queue name) of the subscription's dead-letter queue, if it has one."""
    value = subscription.attributes.get("RedrivePolicy")
    if not value:
        return None
    return parse_queue_arn(orjson.loads(value)["deadLetterTargetArn"])
