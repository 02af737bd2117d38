"""SQS queue ARNs: `arn:aws:sqs:<region>:<account id>:<queue name>`."""

from __future__ import annotations

import re

# TideMQ serves one region; ARNs name it so SDKs and policies that parse them work.
REGION = "us-east-1"
_QUEUE_ARN = re.compile(r"^arn:aws:sqs:([a-z0-9-]+):([0-9]{12}):([A-Za-z0-9_-]{1,80}(\.fifo)?)\Z")


def queue_arn(account_id: str, queue_name: str) -> str:
    return f"arn:aws:sqs:{REGION}:{account_id}:{queue_name}"


def parse_queue_arn(arn: str) -> tuple[str, str] | None:
    """(account id, queue name) of a queue ARN, or None if it is not one."""
    match = _QUEUE_ARN.match(arn)
    return (match.group(2), match.group(3)) if match else None
