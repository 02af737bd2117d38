"""Topic policies: AddPermission / RemovePermission statements, and who they let in.

A topic's `Policy` attribute is an IAM-style document, as in SNS. Without one the topic
has SNS's default policy (owner only: gateway/core/topic_attributes.py). AddPermission
adds a statement by label (`Sid`) granting SNS actions to accounts; RemovePermission
takes it away. Another account may call an action on a topic when the policy's
statements allow it (control_plane/policy_statements.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import orjson

from control_plane import policy_statements
from control_plane.topics import TopicInfo
from gateway.core.topic_attributes import default_policy, invalid

GRANTABLE_ACTIONS = frozenset(
    {
        "Publish",
        "Subscribe",
        "Receive",
        "GetTopicAttributes",
        "ListSubscriptionsByTopic",
        "SetTopicAttributes",
        "DeleteTopic",
        "AddPermission",
        "RemovePermission",
    }
)
_LABEL = re.compile(r"[A-Za-z0-9_-]{1,80}\Z")


def add_permission(
    topic: TopicInfo, label: str, account_ids: Sequence[str], actions: Sequence[str]
) -> str:
    """The topic's policy with statement `label` granting `actions` to `account_ids`."""
    if not _LABEL.match(label):
        raise invalid("Label")
    if not account_ids or not all(re.fullmatch(r"[0-9]{12}", a) for a in account_ids):
        raise invalid("AWSAccountId")
    if not actions or not all(a in GRANTABLE_ACTIONS for a in actions):
        raise invalid("ActionName")
    document = _document(topic)
    if any(s.get("Sid") == label for s in document["Statement"]):
        raise invalid("Statement already exists")
    document["Statement"].append(
        {
            "Sid": label,
            "Effect": "Allow",
            "Principal": {"AWS": [f"arn:aws:iam::{a}:root" for a in account_ids]},
            "Action": [f"SNS:{a}" for a in actions],
            "Resource": topic.arn,
        }
    )
    return orjson.dumps(document).decode()


def remove_permission(topic: TopicInfo, label: str) -> str:
    document = _document(topic)
    kept = [s for s in document["Statement"] if s.get("Sid") != label]
    if len(kept) == len(document["Statement"]):
        raise invalid("Statement does not exist")
    document["Statement"] = kept
    return orjson.dumps(document).decode()


def allows(topic: TopicInfo, account_id: str, action: str) -> bool:
    """Whether the topic's policy lets `account_id` (not the owner) call `action`."""
    return policy_statements.allows(_document(topic)["Statement"], account_id, "sns", action)


def _document(topic: TopicInfo) -> dict[str, Any]:
    document = orjson.loads(topic.attributes.get("Policy") or default_policy(topic))
    if not isinstance(document, dict):
        document = {}
    statements = document.get("Statement")
    if isinstance(statements, dict):
        statements = [statements]
    document["Statement"] = statements if isinstance(statements, list) else []
    return document
