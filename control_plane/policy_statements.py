"""Judging IAM-style policy statements, as queues (SQS) and topics (SNS) both use them.

TideMQ evaluates the statements it understands: `Effect` Allow or Deny, `Principal`
`{"AWS": ...}` (or a bare value) naming accounts (`123456789012`,
`arn:aws:iam::<id>:root`) or `"*"`, and `Action` `<service>:<Action>`, `<service>:*` or
`*`, in any case. A statement with a `Condition` (or anything else it cannot judge)
grants nothing; a Deny that matches wins.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

_ACCOUNT = re.compile(r"^(?:arn:aws:iam::)?([0-9]{12})(?::root)?\Z")


def allows(statements: Iterable[Any], account_id: str, service: str, action: str) -> bool:
    """Whether the statements let `account_id` call `service`'s `action`."""
    allowed = False
    for statement in statements:
        if not isinstance(statement, dict) or not _matches(statement, account_id, service, action):
            continue
        if statement.get("Effect") == "Deny":
            return False
        allowed = allowed or statement.get("Effect") == "Allow"
    return allowed


def _matches(statement: dict[str, Any], account_id: str, service: str, action: str) -> bool:
    if "Condition" in statement:
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
    wanted = ("*", f"{service}:*", f"{service}:{action}".lower())
    what = any(isinstance(v, str) and v.lower() in wanted for v in verbs)
    return bool(who and what)
