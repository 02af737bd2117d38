"""Building the SNS envelope of a record for a subscription, signed once per message.

The signature covers neither the subscription nor its UnsubscribeURL
(gateway/core/notifications.py), so every subscription of a topic shares one signature
per message and SignatureVersion: kept here in a small cache, since signing (RSA) costs
far more than the rest of a delivery and each subscription's task shapes the same
records.
"""

from __future__ import annotations

import base64
import uuid
from collections import OrderedDict

from control_plane.signing_keys import SigningKey
from control_plane.subscriptions import SubscriptionInfo
from control_plane.topics import TopicInfo
from gateway.core import notifications, partitioning
from gateway.core.publisher import SUBJECT
from storage_nodes.node import Record

_CACHED_SIGNATURES = 4096


class Envelopes:
    def __init__(self, key: SigningKey, base_url: str) -> None:
        """`base_url`: where this deployment is reached, for the links in envelopes."""
        self.key = key
        self.base_url = base_url
        self._signatures: OrderedDict[tuple[str, str], notifications.Signature] = OrderedDict()

    def notification(
        self, topic: TopicInfo, subscription: SubscriptionInfo, record: Record, text: str
    ) -> bytes:
        """The JSON envelope of `record` as `subscription` receives it (`text`: the
        message, already chosen for its protocol)."""
        subject = record.system_attributes.get(SUBJECT)
        notification = notifications.Notification(
            message_id=record.message_id,
            topic_arn=topic.arn,
            message=text,
            timestamp=notifications.iso_timestamp(record.timestamp_ms),
            subject=subject.string_value if subject is not None else None,
            attributes={
                name: notifications.EnvelopeAttribute(
                    attribute.data_type,
                    base64.b64encode(attribute.binary_value).decode()
                    if attribute.binary_value is not None
                    else attribute.string_value or "",
                )
                for name, attribute in record.attributes.items()
            },
            sequence_number=_sequence_number(topic, record),
        )
        signature = None
        if not topic.fifo:
            version = topic.attributes.get("SignatureVersion", "1")
            signature = self._signature(notification, version)
        unsubscribe = notifications.unsubscribe_url(self.base_url, subscription.arn)
        return notification.envelope(unsubscribe, signature)

    def _signature(
        self, notification: notifications.Notification, version: str
    ) -> notifications.Signature:
        cache_key = (notification.message_id + "\0" + notification.message, version)
        signature = self._signatures.get(cache_key)
        if signature is None:
            signature = notifications.sign(
                notification.string_to_sign(), self.key, version, self.base_url
            )
            self._signatures[cache_key] = signature
            if len(self._signatures) > _CACHED_SIGNATURES:
                self._signatures.popitem(last=False)
        return signature

    def confirmation(
        self, topic: TopicInfo, subscription: SubscriptionInfo, now_ms: int
    ) -> tuple[str, bytes]:
        """The SubscriptionConfirmation a webhook gets: its message id and its body."""
        assert subscription.token is not None, "only pending subscriptions are confirmed"
        message_id = str(uuid.uuid4())
        confirmation = notifications.subscription_confirmation(
            message_id=message_id,
            token=subscription.token,
            topic_arn=topic.arn,
            timestamp=notifications.iso_timestamp(now_ms),
            base_url=self.base_url,
        )
        version = topic.attributes.get("SignatureVersion", "1")
        signature = notifications.sign(
            confirmation.string_to_sign(), self.key, version, self.base_url
        )
        return message_id, confirmation.envelope(signature)


def _sequence_number(topic: TopicInfo, record: Record) -> str | None:
    """A FIFO topic's message's SequenceNumber, as its publish was answered: its group
    names its partition (gateway/core/partitioning.py)."""
    if not topic.fifo or record.group_id is None:
        return None
    partition = partitioning.group_partition(record.group_id, topic.partitions)
    return partitioning.sequence_number(partition, record.offset, topic.partitions)
