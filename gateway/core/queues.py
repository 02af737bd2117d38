"""A queue as the core hands it to protocols: its identity, stored attributes (SQS's
names, which both the SQS and the REST API use) and typed settings, with the stats and
move-task records the operations return, and queue ARNs."""

from __future__ import annotations

from control_plane.arns import parse_queue_arn, queue_arn
from control_plane.deliveries import SubscriptionStats
from control_plane.move_tasks import MoveTask
from control_plane.queue_settings import QueueSettings
from control_plane.queues import QueueInfo

Queue = QueueInfo

__all__ = [
    "MoveTask",
    "Queue",
    "QueueSettings",
    "SubscriptionStats",
    "parse_queue_arn",
    "queue_arn",
]
