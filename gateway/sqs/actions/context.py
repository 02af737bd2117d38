"""What every SQS action gets: the broker, the caller's account, the queue URL base."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from control_plane.queues import QueueInfo
from gateway.broker import Broker
from gateway.sqs import queue_urls
from gateway.sqs.params import Params, required_str

Response = dict[str, Any]


@dataclass(frozen=True, slots=True)
class SqsContext:
    broker: Broker
    account_id: str
    base_url: str  # scheme://host[:port] that queue URLs are built on

    async def queue(self, params: Params, name: str = "QueueUrl") -> QueueInfo:
        account_id, queue_name = queue_urls.resolve(required_str(params, name), self.account_id)
        return await self.broker.get_queue(account_id, queue_name)

    def queue_url(self, name: str) -> str:
        return queue_urls.build(self.base_url, self.account_id, name)


Handler = Callable[[SqsContext, Params], Awaitable[Response]]
ACTIONS: dict[str, Handler] = {}


def action(name: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        ACTIONS[name] = handler
        return handler

    return register
