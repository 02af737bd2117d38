"""The protocols a topic can be subscribed with, and what each takes as its endpoint.

`sqs` (a queue's ARN) and `http` / `https` (a webhook's URL) are SNS's, delivered by
TideMQ (gateway/core/dispatcher.py); `pull` is TideMQ's own, whose endpoint is the
subscription's name and which consumers read from (gateway/core/pull_subscriptions.py).
SNS's other protocols are refused with a message that says TideMQ does not deliver to
them (docs/topics.md).
"""

from __future__ import annotations

import re

from control_plane.arns import parse_queue_arn
from control_plane.topics import TopicInfo
from gateway.core.subscription_attributes import PULL
from gateway.core.topic_attributes import invalid

# Protocols SNS has that TideMQ does not deliver to, and why (issue-level decision,
# docs/topics.md).
_NOT_SUPPORTED = {
    "email": "email",
    "email-json": "email",
    "sms": "SMS",
    "application": "mobile push",
    "lambda": "AWS Lambda",
    "firehose": "Amazon Data Firehose",
}
# A pull subscription's endpoint is its name, unique within its topic (as a Pulsar
# subscription's name is).
_PULL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,256}\Z")


def check_protocol(topic: TopicInfo, protocol: str, endpoint: str) -> None:
    """SNS's InvalidParameter unless `topic` may be subscribed with `protocol` (lower
    case) at `endpoint`."""
    if protocol in _NOT_SUPPORTED:
        raise invalid(
            f"Protocol: TideMQ does not deliver to {_NOT_SUPPORTED[protocol]} endpoints; "
            "subscribe an SQS queue, an HTTP or HTTPS webhook, or pull from the topic."
        )
    if protocol == "sqs":
        queue = parse_queue_arn(endpoint)
        if queue is None:
            raise invalid("SQS endpoint ARN")
        if queue[1].endswith(".fifo") and not topic.fifo:
            raise invalid(
                "Endpoint Reason: FIFO SQS Queues can not be subscribed to standard SNS topics"
            )
        return
    if protocol == PULL:
        if topic.fifo:
            raise invalid(
                "Protocol: pull subscriptions are for standard topics; subscribe a FIFO "
                "queue to a FIFO topic"
            )
        if not _PULL_NAME.match(endpoint):
            raise invalid(
                "Endpoint: a pull subscription's endpoint is its name, 1 to 256 letters, "
                "digits, hyphens, underscores or periods"
            )
        return
    if protocol in ("http", "https"):
        if topic.fifo:
            raise invalid("Invalid protocol type: " + protocol)
        if not endpoint.lower().startswith(protocol + "://") or len(endpoint) <= len(protocol) + 3:
            raise invalid("Endpoint")
        return
    raise invalid(f"Amazon SNS does not support this protocol string: {protocol}")
