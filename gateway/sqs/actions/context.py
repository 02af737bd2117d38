"""What every SQS action gets: the broker, the caller's account, the queue URL base."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from gateway.core import queue_urls
from gateway.core.broker import Broker
from gateway.core.queues import Queue
from gateway.sqs.params import Params, required_str

Response = dict[str, Any]


@dataclass(frozen=True, slots=True)
class SqsContext:
    broker: Broker
    account_id: str
    base_url: str  # scheme://host[:port] that queue URLs are built on
    action: str = ""  # the SQS action being served, for other accounts' permissions

    async def queue(self, params: Params, name: str = "QueueUrl") -> Queue:
        account_id, queue_name = queue_urls.resolve(required_str(params, name), self.account_id)
        return await self.permitted_queue(account_id, queue_name)

    async def permitted_queue(self, owner_account_id: str, name: str) -> Queue:
        """The queue, if the caller owns it or its policy grants the caller this action."""
        return await self.broker.permitted_queue(
            self.account_id, owner_account_id, name, self.action
        )

    def queue_url(self, name: str, owner_account_id: str | None = None) -> str:
        return queue_urls.build(self.base_url, owner_account_id or self.account_id, name)


Handler = Callable[[SqsContext, Params], Awaitable[Response]]
ACTIONS: dict[str, Handler] = {}


def action(name: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        ACTIONS[name] = handler
        return handler

    return register
