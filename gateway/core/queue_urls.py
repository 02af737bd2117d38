"""Queue URLs: `<base>/<account id>/<queue name>`, built from the request's host.

A URL is resolved by its path whatever its host (clients reach us by many names), and a
bare queue name is accepted where a URL is expected, as DESIGN.md section 3 says.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from gateway.core.errors import queue_does_not_exist

# Standard names: 1-80 of these characters; FIFO names end in ".fifo" within the 80.
_QUEUE_NAME = re.compile(r"^(?:[A-Za-z0-9_-]{1,80}|[A-Za-z0-9_-]{1,75}\.fifo)\Z")
_ACCOUNT_ID = re.compile(r"^[0-9]{12}\Z")


def build(base_url: str, account_id: str, name: str) -> str:
    return f"{base_url.rstrip('/')}/{account_id}/{name}"


def resolve(queue_url: str, caller_account_id: str) -> tuple[str, str]:
    """(owner account id, queue name) named by a queue URL or a bare queue name (which
    names one of the caller's own queues). Whether the caller may use another account's
    queue is the queue's policy's business (Broker.permitted_queue)."""
    if "/" not in queue_url:
        return caller_account_id, _name_or_missing(queue_url)
    path = urlsplit(queue_url).path if "://" in queue_url else queue_url
    parts = [part for part in path.split("/") if part]
    if len(parts) != 2 or not _ACCOUNT_ID.match(parts[0]):
        raise queue_does_not_exist()
    account_id, name = parts
    return account_id, _name_or_missing(name)


def _name_or_missing(name: str) -> str:
    if not _QUEUE_NAME.match(name):
        raise queue_does_not_exist()
    return name
