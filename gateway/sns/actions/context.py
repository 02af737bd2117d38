"""What every SNS action gets, and the table of actions by name."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from gateway.core.broker import Broker

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


# params: the action's parameters, by their names in botocore's SNS model
# (gateway/sns/query_protocol.py); the result likewise, rendered from the model.
Handler = Callable[[SnsContext, Params], Awaitable[Result]]
ACTIONS: dict[str, Handler] = {}


def action(name: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        ACTIONS[name] = handler
        return handler

    return register
