"""What every REST handler gets: the broker, the caller's account, the path's values,
and the caller's queue, topic or subscription the path names."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gateway.core import queue_urls
from gateway.core.broker import Broker
from gateway.core.errors import CoreError
from gateway.core.queues import Queue
from gateway.core.topics import Subscription, Topic
from gateway.rest.errors import not_found_queue


@dataclass(frozen=True, slots=True)
class RestContext:
    broker: Broker
    account_id: str
    base_url: str  # scheme://host[:port] that SQS queue URLs are built on
    path_params: Mapping[str, str]

    async def queue(self, name: str | None = None) -> Queue:
        """The caller's queue named in the path (or `name`); QueueDoesNotExist (404) if
        there is none, also when the name is not a queue name at all."""
        return await self.broker.get_queue(self.account_id, self.queue_name(name))

    def queue_name(self, name: str | None = None) -> str:
        name = self.path_params["name"] if name is None else name
        if "/" in name:  # a bare name only: REST names the caller's own queues
            raise not_found_queue()
        try:
            _, checked = queue_urls.resolve(name, self.account_id)
        except CoreError:
            raise not_found_queue() from None
        return checked

    def queue_url(self, name: str) -> str:
        return queue_urls.build(self.base_url, self.account_id, name)

    async def topic(self) -> Topic:
        """The caller's topic named in the path; NotFound (404) if there is none."""
        return await self.broker.topics.own_topic(self.account_id, self.path_params["name"])

    async def subscription(self) -> Subscription:
        """The subscription to one of the caller's topics whose id is in the path;
        NotFound (404) if there is none."""
        return await self.broker.topics.own_subscription(self.account_id, self.path_params["id"])
