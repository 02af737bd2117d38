"""Queue policies: which other accounts may call which actions on a queue.

A queue's `Policy` attribute is an IAM-style policy document, as in SQS. AddPermission
and RemovePermission edit its statements by label (`Sid`); SetQueueAttributes may set a
whole document. Statements are judged by control_plane/policy_statements.py (Allow and
Deny, accounts or `*`, `SQS:<Action>`, `SQS:*` or `*`; a `Condition` grants nothing);
only the actions in GRANTABLE_ACTIONS can be granted at all. The queue's own account
needs no policy.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import orjson

from control_plane import policy_statements
from control_plane.errors import InvalidAttributeValue, InvalidParameterValue, PolicyOverLimit

# What another account may be granted, as AddPermission takes it. SendMessage,
# DeleteMessage and ChangeMessageVisibility grant their batch actions too.
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
    }
)
# SQS actions only the queue's owner may call: AddPermission refuses them by name, in
# other words than a name it does not know at all (a batch action's included).
OWNER_ONLY_ACTIONS = frozenset(
    {
        "AddPermission",
        "CancelMessageMoveTask",
        "CreateQueue",
        "DeleteQueue",
        "ListMessageMoveTasks",
        "ListQueueTags",
        "ListQueues",
        "RemovePermission",
        "SetQueueAttributes",
        "StartMessageMoveTask",
        "TagQueue",
        "UntagQueue",
    }
)
# SQS's policy quotas.
MAX_ACTIONS = 7
MAX_PRINCIPALS = 50
MAX_STATEMENTS = 20
# The policy AddPermission starts: SQS writes this version, not IAM's 2012-10-17.
ADD_PERMISSION_POLICY_VERSION = "2008-10-17"
_LABEL = re.compile(r"^[A-Za-z0-9_-]{1,80}\Z")
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
    """The policy with a statement `label` granting `actions` to `account_ids`, checked
    and worded as SQS does (an empty `actions` is the caller's to refuse: SQS calls it a
    missing parameter). The statement is SQS's: one principal or action is a string,
    several a list."""
    _check_actions(actions)
    _check_principals(account_ids)
    if not _LABEL.match(label):
        raise InvalidParameterValue(
            "Label can only include alphanumeric characters, hyphens, or underscores. "
            "1 to 80 in length"
        )
    document = _document(policy, queue_arn)
    statements = document["Statement"]
    if any(s.get("Sid") == label for s in statements):
        raise _bad_label(label, "Already exists.")
    if len(statements) >= MAX_STATEMENTS:
        raise PolicyOverLimit(
            f"{len(statements) + 1} Statements were found, maximum allowed is {MAX_STATEMENTS}."
        )
    principals = [f"arn:aws:iam::{a}:root" for a in account_ids]
    granted = [f"SQS:{a}" for a in actions]
    statements.append(
        {
            "Sid": label,
            "Effect": "Allow",
            "Principal": {"AWS": _one_or_list(principals)},
            "Action": _one_or_list(granted),
            "Resource": queue_arn,
        }
    )
    return orjson.dumps(document).decode()


def remove_permission(policy: str | None, queue_arn: str, label: str) -> str:
    """The policy without statement `label` ("" when nothing is left)."""
    document = _document(policy, queue_arn)
    kept = [s for s in document["Statement"] if s.get("Sid") != label]
    if len(kept) == len(document["Statement"]):
        raise _bad_label(label, "can't find label.")
    document["Statement"] = kept
    return orjson.dumps(document).decode() if kept else ""


def _check_actions(actions: Sequence[str]) -> None:
    if len(actions) > MAX_ACTIONS:
        raise PolicyOverLimit(
            f"{len(actions)} Actions were found, maximum allowed is {MAX_ACTIONS}."
        )
    for action in actions:
        if action == "*" or action in GRANTABLE_ACTIONS:
            continue
        reason = (
            "Only the queue owner is allowed to invoke this action."
            if action in OWNER_ONLY_ACTIONS
            else "Please refer to the appropriate WSDL for a list of valid actions."
        )
        raise InvalidParameterValue(
            f"Value SQS:{action} for parameter ActionName is invalid. Reason: {reason}"
        )


def _check_principals(account_ids: Sequence[str]) -> None:
    if len(account_ids) > MAX_PRINCIPALS:
        raise PolicyOverLimit(
            f"{len(account_ids)} Principals were found, maximum allowed is {MAX_PRINCIPALS}."
        )
    # SQS verifies that each account exists; TideMQ can only check that it is one.
    if not account_ids or not all(re.fullmatch(r"[0-9]{12}", a) for a in account_ids):
        shown = ", ".join(account_ids)  # as SQS prints the list: [a, b]
        raise InvalidParameterValue(
            f"Value [{shown}] for parameter PrincipalId is invalid. Reason: Unable to verify."
        )


def _one_or_list(values: list[str]) -> str | list[str]:
    return values[0] if len(values) == 1 else values


def _bad_label(label: str, reason: str) -> InvalidParameterValue:
    return InvalidParameterValue(f"Value {label} for parameter Label is invalid. Reason: {reason}")


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
    if action not in GRANTABLE_ACTIONS:
        return False
    return policy_statements.allows(
        orjson.loads(policy).get("Statement", []), account_id, "sqs", action
    )


def _document(policy: str | None, queue_arn: str) -> dict[str, Any]:
    if policy:
        document: dict[str, Any] = orjson.loads(policy)
        return document
    return {
        "Version": ADD_PERMISSION_POLICY_VERSION,
        "Id": f"{queue_arn}/SQSDefaultPolicy",
        "Statement": [],
    }
