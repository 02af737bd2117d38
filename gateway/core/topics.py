"""Topics and subscriptions: the operations of SNS's catalogue, protocol-neutral.

A topic is a stream with many subscriptions (DESIGN.md §3). Creating one creates its
stream on the storage node; subscribing gives the subscription a cursor at the topic
log's end, so that it gets what is published from then on, as in SNS. Queues and pull
subscriptions are subscribed at once; webhooks wait for confirmation and get their
cursor when confirmed. Which protocols, with which endpoints: subscription_protocols.py.

Access: an account may do anything with its own topics; another account only what the
topic's policy grants it (gateway/core/topic_policy.py), else AuthorizationError, as in
SNS.
Publishing is in gateway/core/publisher.py, delivery in gateway/core/dispatcher.py,
pull subscriptions' receiving and seeking in gateway/core/pull_subscriptions.py.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from control_plane.arns import is_subscription_id, parse_subscription_arn, parse_topic_arn
from control_plane.plane import ControlPlane
from control_plane.queue_attributes import ReplicationMode
from control_plane.subscriptions import SubscriptionInfo
from control_plane.topics import TopicInfo
from gateway import metrics
from gateway.core import subscription_attributes, topic_attributes, topic_policy
from gateway.core.dispatch_governor import DispatchGovernor
from gateway.core.errors import CoreError, ErrorKind, translated
from gateway.core.messages import MessageInput
from gateway.core.publisher import Published, Publisher, PublishInput, publish_input
from gateway.core.receiver import log_ends
from gateway.core.subscription_protocols import check_protocol
from gateway.core.topic_attributes import invalid
from gateway.core.validation import FieldNames
from storage_nodes.node import Node, StreamDescriptor

# The names protocols know these by.
Topic = TopicInfo
Subscription = SubscriptionInfo

PAGE_SIZE = 100
# What SNS answers for the ARN of a subscription that waits for confirmation.
PENDING_CONFIRMATION = "pending confirmation"
_TOPIC_NAME = re.compile(r"[A-Za-z0-9_-]{1,256}\Z|[A-Za-z0-9_-]{1,251}\.fifo\Z")


@dataclass(frozen=True, slots=True)
class Page:
    items: list[str]
    next_token: str | None


def authorization_error(caller_account_id: str, action: str, arn: str) -> CoreError:
    return CoreError(
        "AuthorizationError",
        f"User: arn:aws:iam::{caller_account_id}:root is not authorized to perform: "
        f"SNS:{action} on resource: {arn}",
        ErrorKind.FORBIDDEN,
    )


class Topics:
    def __init__(
        self,
        control: ControlPlane,
        storage: Node,
        governor: DispatchGovernor,
        *,
        default_replication: ReplicationMode = "none",
    ) -> None:
        """`default_replication`: a new topic's `Replication` unless it names one."""
        self._default_replication: ReplicationMode = default_replication
        self._control = control
        self._storage = storage
        self._publisher = Publisher(control, storage)
        self._governor = governor

    # -- topics ---------------------------------------------------------------------------

    @translated
    async def create_topic(
        self,
        account_id: str,
        name: str,
        attributes: Mapping[str, str],
        tags: Mapping[str, str],
    ) -> TopicInfo:
        topic_attributes.check_topic_name(name, attributes)
        checked = topic_attributes.check_attributes(
            attributes, fifo=name.endswith(".fifo"), creating=True
        )
        if name.endswith(".fifo") and checked.get("FifoTopic") != "true":
            raise invalid("Topic Name")
        check_tags(tags)
        topic, created = await self._control.topics.create(
            account_id, name, checked, tags, default_replication=self._default_replication
        )
        if created:
            await self._storage.create_stream(
                StreamDescriptor(
                    topic.stream_id, account_id, "topic", name, topic.partitions, topic.created_ms
                )
            )
        return topic

    @translated
    async def topic(self, caller_account_id: str, arn: str, action: str) -> TopicInfo:
        """The topic an ARN names, if the caller may `action` it."""
        parsed = parse_topic_arn(arn)
        if parsed is None:
            raise invalid("TopicArn")
        account_id, name = parsed
        topic = await self._control.topics.get(account_id, name)
        if account_id != caller_account_id and not topic_policy.allows(
            topic, caller_account_id, action
        ):
            raise authorization_error(caller_account_id, action, arn)
        return topic

    @translated
    async def own_topic(self, account_id: str, name: str) -> TopicInfo:
        """The account's topic of that name (the native APIs name topics by bare names);
        NotFound also for a name no topic can have."""
        if not _TOPIC_NAME.match(name):
            raise CoreError("NotFound", "Topic does not exist", ErrorKind.NOT_FOUND)
        return await self._control.topics.get(account_id, name)

    @translated
    async def topics_page(self, account_id: str, after: str, limit: int) -> list[TopicInfo]:
        """Up to `limit` of the account's topics whose names sort after `after`."""
        return await self._control.topics.list_page(account_id, after, limit)

    @translated
    async def topic_attributes(self, topic: TopicInfo) -> dict[str, str]:
        counts = {"confirmed": 0, "pending": 0}
        after = ""
        while True:
            page = await self._control.subscriptions.list_page(
                topic.account_id, topic.name, after, 1000
            )
            for subscription in page:
                counts["pending" if subscription.pending else "confirmed"] += 1
            if len(page) < 1000:
                break
            after = page[-1].id
        shown = {
            "TopicArn": topic.arn,
            "Owner": topic.account_id,
            "Policy": topic_attributes.default_policy(topic),
            "DisplayName": "",
            "SubscriptionsConfirmed": str(counts["confirmed"]),
            "SubscriptionsPending": str(counts["pending"]),
            "SubscriptionsDeleted": "0",
            "Partitions": "1",
            "Replication": topic.replication,
            "EffectiveDeliveryPolicy": subscription_attributes.effective_topic_delivery_policy(
                topic.attributes.get("DeliveryPolicy")
            ),
        }
        if topic.fifo:
            shown["FifoTopic"] = "true"
            shown["ContentBasedDeduplication"] = "false"
        shown.update(topic.attributes)
        return shown

    @translated
    async def set_topic_attribute(self, topic: TopicInfo, name: str, value: str) -> None:
        await self.set_topic_attributes(topic, {name: value})

    @translated
    async def set_topic_attributes(self, topic: TopicInfo, changes: Mapping[str, str]) -> TopicInfo:
        """Checks every change, then makes them all at once ("" removes an attribute)."""
        checked = topic_attributes.check_attributes(changes, fifo=topic.fifo, creating=False)
        removed = {name: "" for name in changes if name not in checked}
        return await self._control.topics.set_attributes(topic, {**checked, **removed})

    @translated
    async def delete_topic(self, caller_account_id: str, arn: str) -> None:
        """Deletes the topic, its subscriptions and its log; a topic that is not there is
        deleted already (SNS's DeleteTopic is idempotent)."""
        parsed = parse_topic_arn(arn)
        if parsed is None:
            raise invalid("TopicArn")
        account_id, name = parsed
        if account_id != caller_account_id:
            raise authorization_error(caller_account_id, "DeleteTopic", arn)
        deleted = await self._control.topics.delete(account_id, name)
        if deleted is None:
            return
        topic, subscription_ids = deleted
        for subscription_id in subscription_ids:
            await self._control.subscriptions.forget_pushed(account_id, subscription_id)
            await self._control.deliveries.drop(subscription_id, topic.partitions)
        await self._control.forget_stream(topic.stream_id, topic.partitions)
        await self._storage.drop_stream(topic.stream_id)
        metrics.topics.drop(account_id, name)

    @translated
    async def list_topics(self, account_id: str, next_token: str | None) -> Page:
        after = _token_value(next_token)
        topics = await self._control.topics.list_page(account_id, after, PAGE_SIZE + 1)
        more = len(topics) > PAGE_SIZE
        topics = topics[:PAGE_SIZE]
        return Page([t.arn for t in topics], _token(topics[-1].name) if more else None)

    @translated
    async def tags(self, topic: TopicInfo) -> dict[str, str]:
        return await self._control.topics.tags(topic.account_id, topic.name)

    @translated
    async def tag(self, topic: TopicInfo, tags: Mapping[str, str]) -> None:
        check_tags(tags)
        await self._control.topics.tag(topic, tags)

    @translated
    async def untag(self, topic: TopicInfo, tag_keys: Sequence[str]) -> None:
        await self._control.topics.untag(topic, tag_keys)

    @translated
    async def publish(
        self, topic: TopicInfo, messages: Sequence[PublishInput]
    ) -> list[Published | CoreError]:
        """Per message, what was published or why it was refused (gateway/core/publisher.py)."""
        with self._governor.publishing():
            return await self._publisher.publish(topic, messages)

    @translated
    async def publish_drafts(
        self, topic: TopicInfo, drafts: Sequence[MessageInput], names: FieldNames
    ) -> list[Published | CoreError]:
        """The native APIs' publish: per message, in order, what was published or why
        that one was refused; the valid ones in one append."""
        results: list[Published | CoreError | None] = [None] * len(drafts)
        valid: list[tuple[int, PublishInput]] = []
        for index, draft in enumerate(drafts):
            try:
                valid.append((index, publish_input(draft, names)))
            except CoreError as exc:
                results[index] = exc
        if valid:
            with self._governor.publishing():
                published = await self._publisher.publish(topic, [one for _, one in valid])
            for (index, _), one in zip(valid, published, strict=True):
                results[index] = one
        return [r for r in results if r is not None]

    @translated
    async def add_permission(
        self, topic: TopicInfo, label: str, account_ids: Sequence[str], actions: Sequence[str]
    ) -> None:
        policy = topic_policy.add_permission(topic, label, account_ids, actions)
        await self._control.topics.set_attributes(topic, {"Policy": policy})

    @translated
    async def remove_permission(self, topic: TopicInfo, label: str) -> None:
        policy = topic_policy.remove_permission(topic, label)
        await self._control.topics.set_attributes(topic, {"Policy": policy})

    # -- subscriptions --------------------------------------------------------------------

    @translated
    async def subscribe(
        self,
        caller_account_id: str,
        topic: TopicInfo,
        protocol: str,
        endpoint: str,
        attributes: Mapping[str, str],
    ) -> tuple[SubscriptionInfo, bool]:
        """The subscription, and whether it is new. Queues are subscribed at once;
        webhooks wait for confirmation (the caller sends them the SubscriptionConfirmation)."""
        protocol = protocol.lower()
        check_protocol(topic, protocol, endpoint)
        # Pull subscriptions, as queues, are subscribed at once: nothing is sent to them.
        checked = subscription_attributes.check_all(attributes, protocol)
        pending = protocol in ("http", "https")
        subscription, created = await self._control.subscriptions.subscribe(
            topic, protocol, endpoint, caller_account_id, checked, pending=pending
        )
        if created and not pending:
            await self._start_at_end(subscription)
        elif not created and dict(subscription.attributes) != checked and checked:
            raise invalid(
                "Attributes Reason: Subscription already exists with different attributes"
            )
        return subscription, created

    @translated
    async def confirm_subscription(self, topic_arn: str, token: str) -> SubscriptionInfo:
        parsed = parse_topic_arn(topic_arn)
        if parsed is None:
            raise invalid("TopicArn")
        topic = await self._control.topics.get(*parsed)
        subscription = await self._control.subscriptions.confirm(topic, token)
        if subscription is None:
            raise invalid("Token")
        await self._start_at_end(subscription)
        return subscription

    async def _start_at_end(self, subscription: SubscriptionInfo) -> None:
        ends = await log_ends(
            self._storage, subscription.topic_stream_id, subscription.topic_partitions
        )
        await self._control.deliveries.start_at(subscription.id, ends)

    @translated
    async def subscription(
        self, caller_account_id: str | None, arn: str, action: str
    ) -> SubscriptionInfo:
        """The subscription an ARN names, if the caller (None: the holder of an
        UnsubscribeURL) may `action` it."""
        parsed = parse_subscription_arn(arn)
        if parsed is None:
            raise invalid("SubscriptionArn")
        account_id, _, subscription_id = parsed
        if caller_account_id is not None and account_id != caller_account_id:
            raise authorization_error(caller_account_id, action, arn)
        return await self._control.subscriptions.get(account_id, subscription_id)

    @translated
    async def own_subscription(self, account_id: str, subscription_id: str) -> SubscriptionInfo:
        """A subscription to one of the account's topics, by id (the native APIs'
        name for it); NotFound also for text that is no subscription id."""
        if not is_subscription_id(subscription_id):
            raise CoreError("NotFound", "Subscription does not exist", ErrorKind.NOT_FOUND)
        return await self._control.subscriptions.get(account_id, subscription_id)

    @translated
    async def unsubscribe(self, caller_account_id: str | None, arn: str) -> None:
        """Removes the subscription and its delivery state; one that is not there is
        removed already."""
        try:
            subscription = await self.subscription(caller_account_id, arn, "Unsubscribe")
        except CoreError as exc:
            if exc.code == "NotFound":
                return
            raise
        await self._control.subscriptions.unsubscribe(subscription)
        await self._control.deliveries.drop(subscription.id, subscription.topic_partitions)

    @translated
    async def subscription_attributes(self, subscription: SubscriptionInfo) -> dict[str, str]:
        topic = await self._control.topics.get(subscription.account_id, subscription.topic_name)
        return subscription_attributes.shown(subscription, topic.attributes.get("DeliveryPolicy"))

    @translated
    async def set_subscription_attribute(
        self, subscription: SubscriptionInfo, name: str, value: str
    ) -> None:
        await self.set_subscription_attributes(subscription, {name: value})

    @translated
    async def set_subscription_attributes(
        self, subscription: SubscriptionInfo, changes: Mapping[str, str]
    ) -> SubscriptionInfo:
        """Checks every change, then makes them all at once ("" removes an attribute)."""
        merged = subscription_attributes.with_changes(subscription, changes)
        return await self._control.subscriptions.set_attributes(subscription, merged)

    @translated
    async def subscriptions_page(
        self, topic: TopicInfo, after: str, limit: int
    ) -> list[SubscriptionInfo]:
        """Up to `limit` of the topic's subscriptions whose ids sort after `after`."""
        return await self._control.subscriptions.list_page(
            topic.account_id, topic.name, after, limit
        )

    @translated
    async def list_subscriptions(
        self, account_id: str, topic: TopicInfo | None, next_token: str | None
    ) -> tuple[list[SubscriptionInfo], str | None]:
        after = _token_value(next_token)
        found = await self._control.subscriptions.list_page(
            account_id, topic.name if topic else None, after, PAGE_SIZE + 1
        )
        more = len(found) > PAGE_SIZE
        found = found[:PAGE_SIZE]
        return found, (_token(found[-1].id) if more else None)


def check_tags(tags: Mapping[str, str]) -> None:
    """SNS's tag rules: keys 1-128 characters, values at most 256."""
    for key, value in tags.items():
        if not 1 <= len(key) <= 128:
            raise invalid("Tags Reason: Tag key length must be between 1 and 128")
        if len(value) > 256:
            raise invalid("Tags Reason: Tag value length must be at most 256")


def _token(after: str) -> str:
    return base64.urlsafe_b64encode(after.encode()).decode()


def _token_value(token: str | None) -> str:
    if not token:
        return ""
    try:
        return base64.urlsafe_b64decode(token.encode()).decode()
    except (ValueError, UnicodeDecodeError):
        raise invalid("NextToken") from None
