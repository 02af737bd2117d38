"""ARNs: queues `arn:aws:sqs:<region>:<account id>:<queue name>`, topics
`arn:aws:sns:<region>:<account id>:<topic name>` and subscriptions
`arn:aws:sns:<region>:<account id>:<topic name>:<subscription id>`."""

from __future__ import annotations

import re

# TideMQ serves one region; ARNs name it so SDKs and policies that parse them work.
REGION = "us-east-1"
_TOPIC_NAME = r"[A-Za-z0-9_-]{1,256}(?:\.fifo)?"
_TOPIC_ARN = re.compile(rf"^arn:aws:sns:[a-z0-9-]+:([0-9]{{12}}):({_TOPIC_NAME})\Z")
_SUBSCRIPTION_ARN = re.compile(
    rf"^arn:aws:sns:[a-z0-9-]+:([0-9]{{12}}):({_TOPIC_NAME}):([0-9a-f-]{{36}})\Z"
)
_SUBSCRIPTION_ID = re.compile(r"^[0-9a-f-]{36}\Z")
_QUEUE_ARN = re.compile(r"^arn:aws:sqs:([a-z0-9-]+):([0-9]{12}):([A-Za-z0-9_-]{1,80}(\.fifo)?)\Z")


def queue_arn(account_id: str, queue_name: str) -> str:
    return f"arn:aws:sqs:{REGION}:{account_id}:{queue_name}"


def parse_queue_arn(arn: str) -> tuple[str, str] | None:
    """(account id, queue name) of a queue ARN, or None if it is not one."""
    match = _QUEUE_ARN.match(arn)
    return (match.group(2), match.group(3)) if match else None


def topic_arn(account_id: str, topic_name: str) -> str:
    return f"arn:aws:sns:{REGION}:{account_id}:{topic_name}"


def subscription_arn(account_id: str, topic_name: str, subscription_id: str) -> str:
    return f"arn:aws:sns:{REGION}:{account_id}:{topic_name}:{subscription_id}"


def parse_topic_arn(arn: str) -> tuple[str, str] | None:
    """(account id, topic name) of a topic ARN, or None if it is not one."""
    match = _TOPIC_ARN.match(arn)
    return (match.group(1), match.group(2)) if match else None


def parse_subscription_arn(arn: str) -> tuple[str, str, str] | None:
    """(account id, topic name, subscription id) of a subscription ARN, or None."""
    match = _SUBSCRIPTION_ARN.match(arn)
    return (match.group(1), match.group(2), match.group(3)) if match else None


def is_subscription_id(text: str) -> bool:
    """Whether `text` has the form of a subscription id (a UUID, as in its ARN)."""
    return _SUBSCRIPTION_ID.match(text) is not None
