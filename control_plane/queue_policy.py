"""Queue policies: which other accounts may call which actions on a queue.

A queue's `Policy` attribute is an IAM-style policy document, as in SQS. AddPermission
and RemovePermission edit its statements by label (`Sid`); SetQueueAttributes may set a
whole document. TideMQ evaluates the statements it understands: `Effect` Allow or Deny,
`Principal` `{"AWS": ...}` naming accounts (`123456789012` or `arn:aws:iam::<id>:root`)
or `"*"`, and `Action` `SQS:<Action>`, `SQS:*` or `*`. A statement with a `Condition` (or
anything else it cannot judge) grants nothing; a Deny that matches wins. The queue's own
account needs no policy.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import orjson

from control_plane.errors import InvalidAttributeValue, InvalidParameterValue

# What another account may be granted; owner-only actions (CreateQueue, DeleteQueue,
# SetQueueAttributes, AddPermission, RemovePermission, tags) are never granted.
GRANTABLE_ACTIONS = frozenset(
    {
        "SendMessage",
        "ReceiveMessage",
        "DeleteMessage",
        "ChangeMessageVisibility",
        "GetQueueAttributes",
        "GetQueueUrl",
        "ListDeadLetterSourceQueues",
        "PurgeQueue",
        "StartMessageMoveTask",
        "CancelMessageMoveTask",
        "ListMessageMoveTasks",
    }
)
_LABEL = re.compile(r"^[A-Za-z0-9_-]{1,80}\Z")
_ACCOUNT = re.compile(r"^(?:arn:aws:iam::)?([0-9]{12})(?::root)?\Z")
_BATCH_ACTIONS = {
    "SendMessageBatch": "SendMessage",
    "DeleteMessageBatch": "DeleteMessage",
    "ChangeMessageVisibilityBatch": "ChangeMessageVisibility",
}


def add_permission(
    policy: str | None,
    queue_arn: str,
    label: str,
    account_ids: Sequence[str],
    actions: Sequence[str],
) -> str:
    """The policy with a statement `label` granting `actions` to `account_ids`."""
    if not _LABEL.match(label):
        raise _bad("Label", label, "1 to 80 alphanumeric characters, hyphens or underscores.")
    if not account_ids or not all(re.fullmatch(r"[0-9]{12}", a) for a in account_ids):
        raise _bad("AWSAccountIds", ",".join(account_ids), "12-digit account ids are needed.")
    if not actions or not all(a == "*" or a in GRANTABLE_ACTIONS for a in actions):
        raise _bad("Actions", ",".join(actions), "only message and read actions, or *.")
    document = _document(policy, queue_arn)
    if any(s.get("Sid") == label for s in document["Statement"]):
        raise _bad("Label", label, "Already exists.")
    document["Statement"].append(
        {
            "Sid": label,
            "Effect": "Allow",
            "Principal": {"AWS": [f"arn:aws:iam::{a}:root" for a in account_ids]},
            "Action": [f"SQS:{a}" for a in actions],
            "Resource": queue_arn,
        }
    )
    return orjson.dumps(document).decode()


def remove_permission(policy: str | None, queue_arn: str, label: str) -> str:
    """The policy without statement `label` ("" when nothing is left)."""
    document = _document(policy, queue_arn)
    kept = [s for s in document["Statement"] if s.get("Sid") != label]
    if len(kept) == len(document["Statement"]):
        raise _bad("Label", label, "can't find label on existing policy.")
    document["Statement"] = kept
    return orjson.dumps(document).decode() if kept else ""


def check_policy(text: str) -> str:
    """A Policy attribute value: a JSON object with a list of statements."""
    try:
        document = orjson.loads(text)
    except orjson.JSONDecodeError:
        document = None
    statements = document.get("Statement") if isinstance(document, dict) else None
    if not isinstance(statements, list) or not all(isinstance(s, dict) for s in statements):
        raise InvalidAttributeValue("Invalid value for the parameter Policy.")
    return orjson.dumps(document).decode()


def allows(policy: str | None, account_id: str, action: str) -> bool:
    """Whether the policy lets `account_id` (not the owner) call `action`."""
    if not policy:
        return False
    action = _BATCH_ACTIONS.get(action, action)
    allowed = False
    for statement in orjson.loads(policy).get("Statement", []):
        if not _matches(statement, account_id, action):
            continue
        if statement.get("Effect") == "Deny":
            return False
        allowed = allowed or statement.get("Effect") == "Allow"
    return allowed


def _matches(statement: dict[str, Any], account_id: str, action: str) -> bool:
    if "Condition" in statement or action not in GRANTABLE_ACTIONS:
        return False
    principal = statement.get("Principal")
    principals = principal.get("AWS") if isinstance(principal, dict) else principal
    names = principals if isinstance(principals, list) else [principals]
    who = any(
        n == "*" or (isinstance(n, str) and (m := _ACCOUNT.match(n)) and m.group(1) == account_id)
        for n in names
    )
    granted = statement.get("Action")
    verbs = granted if isinstance(granted, list) else [granted]
    what = any(
        isinstance(v, str) and v.lower() in ("*", "sqs:*", f"sqs:{action.lower()}") for v in verbs
    )
    return bool(who and what)


def _document(policy: str | None, queue_arn: str) -> dict[str, Any]:
    if policy:
        document: dict[str, Any] = orjson.loads(policy)
        return document
    return {"Version": "2012-10-17", "Id": f"{queue_arn}/SQSDefaultPolicy", "Statement": []}


def _bad(parameter: str, value: str, reason: str) -> InvalidParameterValue:
    return InvalidParameterValue(
        f"Value {value} for parameter {parameter} is invalid. Reason: {reason}"
    )
