"""What every SQS action gets: the broker, the caller's account, the queue URL base."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from control_plane.queue_policy import allows
from control_plane.queues import QueueInfo
from gateway.broker import Broker
from gateway.sqs import queue_urls
from gateway.sqs.errors import SqsError
from gateway.sqs.params import Params, required_str

Response = dict[str, Any]


@dataclass(frozen=True, slots=True)
class SqsContext:
    broker: Broker
    account_id: str
    base_url: str  # scheme://host[:port] that queue URLs are built on
    max_message_bytes: int  # the deployment's cap on any queue's MaximumMessageSize
    action: str = ""  # the SQS action being served, for other accounts' permissions

    def message_limit(self, queue: QueueInfo) -> int:
        """The most bytes a message of `queue` may have (body and attributes)."""
        return min(queue.max_message_bytes, self.max_message_bytes)

    def check_attributes(self, attributes: Mapping[str, str]) -> None:
        """Refuses a MaximumMessageSize beyond what this deployment allows."""
        size = attributes.get("MaximumMessageSize", "").strip()
        if size.isdigit() and int(size) > self.max_message_bytes:
            raise SqsError(
                "InvalidAttributeValue",
                "Invalid value for the parameter MaximumMessageSize. Reason: this TideMQ "
                f"allows at most {self.max_message_bytes} (TIDEMQ_MAX_MESSAGE_BYTES).",
            )

    async def queue(self, params: Params, name: str = "QueueUrl") -> QueueInfo:
        account_id, queue_name = queue_urls.resolve(required_str(params, name), self.account_id)
        return await self.permitted_queue(account_id, queue_name)

    async def permitted_queue(self, owner_account_id: str, name: str) -> QueueInfo:
        """The queue, if the caller owns it or its policy grants the caller this action.

        Otherwise it does not exist as far as the caller can tell: one account cannot
        learn what another has.
        """
        queue = await self.broker.get_queue(owner_account_id, name)
        if owner_account_id != self.account_id and not allows(
            queue.policy, self.account_id, self.action
        ):
            raise SqsError("QueueDoesNotExist", "The specified queue does not exist.")
        return queue

    def queue_url(self, name: str, owner_account_id: str | None = None) -> str:
        return queue_urls.build(self.base_url, owner_account_id or self.account_id, name)


Handler = Callable[[SqsContext, Params], Awaitable[Response]]
ACTIONS: dict[str, Handler] = {}


def action(name: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        ACTIONS[name] = handler
        return handler

    return register
