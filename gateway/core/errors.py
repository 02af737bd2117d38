"""The core's one error type: what went wrong, in words no protocol owns.

    CoreError(code, message, kind)
    └── FilterPolicyError(reason, parameter)   a filter policy (or scope) SNS would refuse

`code` is the shared vocabulary of error names (SQS's where SQS has one, so that users
of every API meet the same names: QueueDoesNotExist, InvalidParameterValue, ...);
`kind` says what sort of failure it is, which each protocol turns into its own status
in one table (gateway/sqs/errors.py, gateway/rest/errors.py); `limit_bytes` is there for
the size errors whose wording differs between protocols.

The core raises nothing else: errors of the control plane and of the storage node are
translated at the core's boundary (`translated`), so a protocol never sees, or imports,
a lower layer's error.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from control_plane.errors import ControlPlaneError
from storage_nodes.node import NodeError, StreamDropped

P = ParamSpec("P")
T = TypeVar("T")


class ErrorKind(enum.Enum):
    INVALID = "invalid"  # the request itself is wrong
    NOT_FOUND = "not_found"  # it names something that is not there (or not the caller's)
    CONFLICT = "conflict"  # the state forbids it now: name taken, purged within the minute
    TOO_LARGE = "too_large"  # a message or a batch over its limit
    FORBIDDEN = "forbidden"  # a quota reached
    UNAUTHORIZED = "unauthorized"  # credentials that prove nothing
    UNAVAILABLE = "unavailable"  # a dependency (Redis, the node) cannot serve now
    INTERNAL = "internal"  # a fault of ours


_SERVER_KINDS = frozenset({ErrorKind.UNAVAILABLE, ErrorKind.INTERNAL})


class CoreError(Exception):
    def __init__(
        self,
        code: str,
        message: str,
        kind: ErrorKind = ErrorKind.INVALID,
        *,
        limit_bytes: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.kind = kind
        self.limit_bytes = limit_bytes

    @property
    def sender_fault(self) -> bool:
        return self.kind not in _SERVER_KINDS


class FilterPolicyError(CoreError):
    """A FilterPolicy or FilterPolicyScope that SNS would refuse: SNS's InvalidParameter.

    `message` is SNS's wording for SetSubscriptionAttributes ("Invalid parameter:
    FilterPolicy: <reason>"); `subscribe_message` is Subscribe's, which SNS words
    "Invalid parameter: Attributes Reason: FilterPolicy: <reason>".
    """

    def __init__(self, reason: str, parameter: str | None = "FilterPolicy") -> None:
        self.parameter = parameter
        self.reason = reason
        where = f"{parameter}: " if parameter else ""
        super().__init__("InvalidParameter", f"Invalid parameter: {where}{reason}")

    @property
    def subscribe_message(self) -> str:
        where = f"{self.parameter}: " if self.parameter else ""
        return f"Invalid parameter: Attributes Reason: {where}{self.reason}"


def invalid_parameter(message: str) -> CoreError:
    return CoreError("InvalidParameterValue", message)


def missing_parameter(name: str) -> CoreError:
    return CoreError("MissingParameter", f"The request must contain the parameter {name}.")


def queue_does_not_exist() -> CoreError:
    return CoreError(
        "QueueDoesNotExist", "The specified queue does not exist.", ErrorKind.NOT_FOUND
    )


# The control plane's error codes whose kind is not INVALID; a 403 is FORBIDDEN whatever
# its code (OverLimit is 403 on a receive, 400 for a policy's limits).
_KIND_BY_CODE = {
    "QueueDoesNotExist": ErrorKind.NOT_FOUND,
    "ResourceNotFoundException": ErrorKind.NOT_FOUND,
    "NotFound": ErrorKind.NOT_FOUND,
    "QueueNameExists": ErrorKind.CONFLICT,
    "QueueDeletedRecently": ErrorKind.CONFLICT,
    "PurgeQueueInProgress": ErrorKind.CONFLICT,
}


def from_lower_layer(exc: ControlPlaneError | NodeError) -> CoreError:
    """The core's form of an error of the control plane or the storage node."""
    if isinstance(exc, StreamDropped):
        return queue_does_not_exist()
    if isinstance(exc, NodeError):  # the disk budget is full, or the archive unreachable
        return CoreError("ServiceUnavailable", str(exc), ErrorKind.UNAVAILABLE)
    if exc.http_status >= 500:
        kind = ErrorKind.UNAVAILABLE if exc.http_status == 503 else ErrorKind.INTERNAL
    elif exc.http_status == 403:
        kind = ErrorKind.FORBIDDEN
    else:
        kind = _KIND_BY_CODE.get(exc.code, ErrorKind.INVALID)
    return CoreError(exc.code, str(exc), kind)


def translated(
    operation: Callable[P, Awaitable[T]],
) -> Callable[P, Coroutine[Any, Any, T]]:
    """An operation of the core that raises CoreError where a lower layer raised its own."""

    @functools.wraps(operation)
    async def run(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await operation(*args, **kwargs)
        except (ControlPlaneError, NodeError) as exc:
            raise from_lower_layer(exc) from exc

    return run
