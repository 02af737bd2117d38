"""Errors of the control plane.

    ControlPlaneError
     +-- QueueDoesNotExist       the named queue is not there (never created, or deleted)
     +-- QueueNameExists         create with attributes that differ from the existing queue's
     +-- QueueDeletedRecently    create within 60 s of deleting a queue of that name
     +-- PurgeQueueInProgress    purge within 60 s of the last purge
     +-- InvalidParameterValue   a value the control plane refuses (tags, redrive targets)
     +-- InvalidAttributeName    an attribute name SQS does not know
     +-- InvalidAttributeValue   a known attribute with a value out of its range
     +-- ReceiptHandleIsInvalid  a receipt that is malformed or fails its signature
     +-- MessageNotInflight      a visibility change for a message not in flight under it
     +-- ResourceNotFound        a message move task handle that names no task
     +-- OverLimit               a receive while the queue has its most messages in flight
     +-- PolicyOverLimit         a permission beyond a policy's limits (actions, principals,
     |                           statements): OverLimit too, but 400, as SQS answers it
     +-- InvalidAccessKey        an access key with a malformed id, secret or account, or
     |                           an id already in use
     +-- SecretUnreadable        a stored secret that the master key cannot decrypt
     +-- NotFound                a topic or subscription that is not there (SNS's code)
 +-- InvalidParameter        a value of a topic or subscription refused (SNS's code)
 |    +-- TagLimitExceeded   a topic would have more than 50 tags
 +-- ControlPlaneUnavailable Redis could not be reached or answered with an error

Each class carries `code` (the error's name, SQS's where SQS has one), `http_status` and
`sender_fault` as attributes, so the gateway's core translates any of them without an
isinstance chain. Redis
errors are translated to `ControlPlaneUnavailable` at the one place commands are sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from control_plane.redis_client import REDIS_ERRORS


class ControlPlaneError(Exception):
    code = "InternalError"
    http_status = 500
    sender_fault = False


class QueueDoesNotExist(ControlPlaneError):
    code = "QueueDoesNotExist"
    http_status = 400
    sender_fault = True


class QueueNameExists(ControlPlaneError):
    code = "QueueNameExists"
    http_status = 400
    sender_fault = True


class QueueDeletedRecently(ControlPlaneError):
    code = "QueueDeletedRecently"
    http_status = 400
    sender_fault = True


class PurgeQueueInProgress(ControlPlaneError):
    code = "PurgeQueueInProgress"
    http_status = 400
    sender_fault = True


class InvalidParameterValue(ControlPlaneError):
    code = "InvalidParameterValue"
    http_status = 400
    sender_fault = True


class InvalidAttributeName(ControlPlaneError):
    code = "InvalidAttributeName"
    http_status = 400
    sender_fault = True


class InvalidAttributeValue(ControlPlaneError):
    code = "InvalidAttributeValue"
    http_status = 400
    sender_fault = True


class ReceiptHandleIsInvalid(ControlPlaneError):
    code = "ReceiptHandleIsInvalid"
    http_status = 400
    sender_fault = True


class MessageNotInflight(ControlPlaneError):
    code = "MessageNotInflight"
    http_status = 400
    sender_fault = True


class InvalidAccessKey(ControlPlaneError):
    code = "InvalidParameterValue"
    http_status = 400
    sender_fault = True


class SecretUnreadable(ControlPlaneError):
    """Sealed under another master key, or altered: an operator's problem, not the caller's."""

    code = "InternalError"
    http_status = 500
    sender_fault = False


class ResourceNotFound(ControlPlaneError):
    code = "ResourceNotFoundException"
    http_status = 400
    sender_fault = True


class OverLimit(ControlPlaneError):
    code = "OverLimit"
    http_status = 403
    sender_fault = True


class PolicyOverLimit(ControlPlaneError):
    code = "OverLimit"
    http_status = 400
    sender_fault = True


class NotFound(ControlPlaneError):
    code = "NotFound"
    http_status = 404
    sender_fault = True


class InvalidParameter(ControlPlaneError):
    code = "InvalidParameter"
    http_status = 400
    sender_fault = True


class TagLimitExceeded(InvalidParameter):
    code = "TagLimitExceeded"


class ControlPlaneUnavailable(ControlPlaneError):
    code = "ServiceUnavailable"
    http_status = 503
    sender_fault = False


@contextmanager
def redis_boundary() -> Iterator[None]:
    """Translates Redis client errors into ControlPlaneUnavailable, keeping the cause."""
    try:
        yield
    except REDIS_ERRORS as exc:
        raise ControlPlaneUnavailable(f"control plane unavailable: {exc}") from exc
