"""The SQS actions: JSON 1.0 request parameters in, response out, registered by name.

Every handler validates all of its input before it calls the broker, so a bad request is
a 4xx that changed nothing. Handlers live in modules by subject (queues, messages,
batches); importing this package registers them all.
"""

from __future__ import annotations

from gateway.sqs.actions import batches, messages, move_tasks, queues  # noqa: F401  (they register)
from gateway.sqs.actions.context import ACTIONS, SqsContext

__all__ = ["ACTIONS", "SqsContext"]
