"""botocore's models of the AWS services whose Query protocol the gateway speaks, read once
per process and before the first request.

The SQS and SNS Query protocols (gateway/sqs/query_protocol.py,
gateway/sns/query_protocol.py) parse and render by these models. Reading one is
botocore's JSON loader and its shape resolver: 15-35 ms a service on the machine of
docs/performance.md, more on a busy event loop. `botocore.session.get_session()` makes a
new session, with a loader and caches of its own, on every call; a model read through it
per action was read again by the first request of each action (23 SQS actions, 42 SNS
ones), and each such read held the event loop, and every request behind it, that long
(docs/performance.md, "Stalls at first use, rounds of 16, Redis connections at start").
So each model is read once, and `load` reads them when the gateway starts.

Thread-safety: read once under the GIL; what it returns is never changed afterwards.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Literal

import botocore.session
from botocore.model import OperationModel

Service = Literal["sqs", "sns"]
SERVICES: tuple[Service, ...] = ("sqs", "sns")


@cache
def operations(service: Service) -> Mapping[str, OperationModel]:
    """Every action of `service`, by name, with its input and output shapes resolved."""
    model = botocore.session.get_session().get_service_model(service)
    found: dict[str, OperationModel] = {}
    for name in model.operation_names:
        operation = model.operation_model(name)
        # Resolved on first access and kept: resolve them here, not in a request.
        _ = operation.input_shape, operation.output_shape
        found[name] = operation
    return found


def operation(service: Service, action: str) -> OperationModel | None:
    """The action's model, or None when `service` has no such action."""
    return operations(service).get(action)


def load() -> None:
    """Reads every model now: call once at start-up, before the gateway serves."""
    for service in SERVICES:
        operations(service)
