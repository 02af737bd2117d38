"""The SNS actions by name: each takes the context and the action's parameters and
returns its result, which gateway/sns/query_protocol.py renders. An action not listed
is refused with InvalidAction before its parameters are parsed."""

from __future__ import annotations

from gateway.sns.actions import publish, subscriptions, topics
from gateway.sns.actions.context import Handler, SnsContext

ACTIONS: dict[str, Handler] = {
    "CreateTopic": topics.create_topic,
    "DeleteTopic": topics.delete_topic,
    "ListTopics": topics.list_topics,
    "GetTopicAttributes": topics.get_topic_attributes,
    "SetTopicAttributes": topics.set_topic_attributes,
    "TagResource": topics.tag_resource,
    "UntagResource": topics.untag_resource,
    "ListTagsForResource": topics.list_tags_for_resource,
    "AddPermission": topics.add_permission,
    "RemovePermission": topics.remove_permission,
    "Subscribe": subscriptions.subscribe,
    "ConfirmSubscription": subscriptions.confirm_subscription,
    "Unsubscribe": subscriptions.unsubscribe,
    "GetSubscriptionAttributes": subscriptions.get_subscription_attributes,
    "SetSubscriptionAttributes": subscriptions.set_subscription_attributes,
    "ListSubscriptions": subscriptions.list_subscriptions,
    "ListSubscriptionsByTopic": subscriptions.list_subscriptions_by_topic,
    "Publish": publish.publish,
    "PublishBatch": publish.publish_batch,
}

__all__ = ["ACTIONS", "Handler", "SnsContext"]
