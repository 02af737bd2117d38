"""What every SNS action gets: the broker, the caller, where it was reached."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from gateway.core.broker import Broker
from gateway.core.errors import CoreError, ErrorKind
from gateway.core.topics import Topic

Params = dict[str, Any]
Result = dict[str, Any]


@dataclass(frozen=True, slots=True)
class SnsContext:
    broker: Broker
    # The verified caller's account; None for the unsigned links SNS puts in its messages
    # (gateway/sns/links.py), whose action decides what the link may do without one.
    account_id: str | None
    base_url: str  # scheme://host[:port] the request came to, for the URLs SNS hands out
    action: str  # the SNS action being served

    def caller(self) -> str:
        """The caller's account; only ConfirmSubscription and Unsubscribe come unsigned."""
        if self.account_id is None:
            raise CoreError(
                "MissingAuthenticationToken",
                "Request is missing Authentication Token",
                ErrorKind.UNAUTHORIZED,
            )
        return self.account_id

    async def topic(self, arn: str, action: str | None = None) -> Topic:
        """The topic `arn` names, if the caller may call `action` (this action) on it."""
        return await self.broker.topics.topic(self.caller(), arn, action or self.action)


# params: the action's parameters, by their names in botocore's SNS model
# (gateway/sns/query_protocol.py); the result likewise, rendered from the model.
Handler = Callable[[SnsContext, Params], Awaitable[Result]]
