"""What one subscription gets of one published record: filtered, then shaped for its
protocol (SNS's JSON envelope, or the raw message with RawMessageDelivery).

Shared by every pushed protocol; the filter policy of a subscription is parsed once per
policy text and kept (`Filters`).
"""

from __future__ import annotations

from collections.abc import Mapping

import orjson

from control_plane.subscriptions import SubscriptionInfo
from control_plane.topics import TopicInfo
from gateway.core.envelopes import Envelopes
from gateway.core.filter_policies import FilterPolicy, parse_filter_policy
from gateway.core.messages import MessageAttribute, NewMessage
from gateway.core.publisher import MESSAGE_STRUCTURE
from storage_nodes.node import Record

_MAX_CACHED_POLICIES = 1024


class Filters:
    """Parsed filter policies by (policy text, scope): parsing is far dearer than a match."""

    def __init__(self) -> None:
        self._parsed: dict[tuple[str, str], FilterPolicy] = {}

    def matches(self, subscription: SubscriptionInfo, record: Record) -> bool:
        policy = self.policy(subscription)
        return policy is None or policy.matches(record.attributes, record.body)

    def policy(self, subscription: SubscriptionInfo) -> FilterPolicy | None:
        """The subscription's filter policy, parsed; None when it has none."""
        text = subscription.attributes.get("FilterPolicy")
        if not text:
            return None
        scope = subscription.attributes.get("FilterPolicyScope") or "MessageAttributes"
        policy = self._parsed.get((text, scope))
        if policy is None:
            if len(self._parsed) >= _MAX_CACHED_POLICIES:
                self._parsed.clear()
            policy = self._parsed[(text, scope)] = parse_filter_policy(text, scope)
        return None if policy.matches_everything else policy


def message_for(record: Record, protocol: str) -> str:
    """The message text a protocol gets: with MessageStructure json, its own entry or
    the default one."""
    text = record.body.decode()
    if MESSAGE_STRUCTURE not in record.system_attributes:
        return text
    document: dict[str, str] = orjson.loads(text)
    return document.get(protocol, document["default"])


def raw_delivery(subscription: SubscriptionInfo) -> bool:
    return subscription.attributes.get("RawMessageDelivery") == "true"


def queue_message(
    envelopes: Envelopes,
    topic: TopicInfo,
    subscription: SubscriptionInfo,
    record: Record,
    *,
    fifo_queue: bool,
) -> NewMessage:
    """The message a queue subscribed to a topic receives for `record`."""
    text = message_for(record, "sqs")
    attributes: Mapping[str, MessageAttribute]
    if raw_delivery(subscription):
        body = text.encode()
        attributes = record.attributes
    else:
        body = envelopes.notification(topic, subscription, record, text)
        attributes = {}
    return NewMessage(
        body=body,
        attributes=attributes,
        group_id=record.group_id if fifo_queue else None,
        dedup_id=record.dedup_id if fifo_queue else None,
    )
