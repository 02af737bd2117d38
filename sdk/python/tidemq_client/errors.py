"""What tidemq_client raises.

    TidemqError                 everything below; also: no credentials, an undocumented answer
     +-- ApiError               TideMQ refused: `code` and `message` from the API's
     |    |                     {"error": {"code", "message"}}, `status` the HTTP status
     |    |                     (None for a WebSocket `error` frame), `request_id` the
     |    |                     response's x-amzn-RequestId (the server logs it)
     |    +-- BadRequest             400  InvalidParameterValue, MissingParameter, ...
     |    +-- Unauthorized           401  MissingAuthenticationToken, SignatureDoesNotMatch, ...
     |    +-- Forbidden              403  OverLimit
     |    +-- NotFound               404  QueueDoesNotExist, ResourceNotFoundException, ...
     |    +-- Conflict               409  QueueNameExists, PurgeQueueInProgress, ...
     |    +-- PayloadTooLarge        413  MessageTooLong, BatchRequestTooLong, ...
     |    +-- Throttled              429  (retried)
     |    +-- ServiceUnavailable     503  (retried)
     |    +-- ServerError            other 5xx (retried)
     +-- ConnectionClosed       the WebSocket connection ended (`code`, `reason`)
     +-- CannotConnect          no connection to the endpoint on any attempt (`endpoint`)

`retriable` says whether the client retries the request (tidemq_client.retries) before
raising. HTTP errors get their class from the status; WebSocket errors, which have no
status, from their code.
"""

from __future__ import annotations

import json
from typing import ClassVar


class TidemqError(Exception):
    """Everything tidemq_client raises."""


class ApiError(TidemqError):
    """TideMQ answered with an error: nothing the request asked for was done (for a 4xx)."""

    http_status: ClassVar[int | None] = None
    retriable: ClassVar[bool] = False

    def __init__(self, code: str, message: str, status: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        # The id the server gave the request (its `x-amzn-RequestId`), which every log
        # record about it names: quote it when asking an operator about the error.
        self.request_id: str | None = None


class BadRequest(ApiError):
    http_status = 400


class Unauthorized(ApiError):
    http_status = 401


class Forbidden(ApiError):
    http_status = 403


class NotFound(ApiError):
    http_status = 404


class Conflict(ApiError):
    http_status = 409


class PayloadTooLarge(ApiError):
    http_status = 413


class Throttled(ApiError):
    http_status = 429
    retriable = True


class ServiceUnavailable(ApiError):
    http_status = 503
    retriable = True


class ServerError(ApiError):
    """A 5xx other than 503."""

    retriable = True


class ConnectionClosed(TidemqError):
    """The WebSocket connection ended before the answer came (or while iterating)."""

    def __init__(self, code: int | None, reason: str) -> None:
        super().__init__(f"connection closed ({code}): {reason}" if reason else "connection closed")
        self.code = code
        self.reason = reason


class CannotConnect(TidemqError):
    """No connection to the endpoint could be made, on any attempt the retry policy allows
    (the server is down, or the endpoint is wrong)."""

    def __init__(self, endpoint: str, cause: str) -> None:
        super().__init__(f"cannot connect to {endpoint}: {cause}")
        self.endpoint = endpoint
        self.cause = cause


_BY_STATUS: dict[int, type[ApiError]] = {
    cls.http_status: cls
    for cls in (
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        Conflict,
        PayloadTooLarge,
        Throttled,
        ServiceUnavailable,
    )
    if cls.http_status is not None
}
# The WebSocket API's codes (docs/websocket.md) by the class their REST status would give.
_BY_CODE: dict[str, type[ApiError]] = {
    **dict.fromkeys(
        (
            "SerializationException",
            "InvalidParameterValue",
            "MissingParameter",
            "InvalidAttributeName",
            "InvalidAttributeValue",
            "InvalidMessageContents",
            "EmptyBatchRequest",
            "TooManyEntriesInBatchRequest",
            "ReceiptHandleIsInvalid",
            "MessageNotInflight",
            "AlreadySubscribed",
            "NotSubscribed",
        ),
        BadRequest,
    ),
    **dict.fromkeys(
        (
            "MissingAuthenticationToken",
            "InvalidClientTokenId",
            "ExpiredToken",
            "IncompleteSignature",
            "SignatureDoesNotMatch",
        ),
        Unauthorized,
    ),
    "OverLimit": Forbidden,
    "QueueDoesNotExist": NotFound,
    "MessageTooLong": PayloadTooLarge,
    "BatchRequestTooLong": PayloadTooLarge,
    "RequestTooLarge": PayloadTooLarge,
    "ServiceUnavailable": ServiceUnavailable,
}


def api_error(code: str, message: str, status: int | None = None) -> ApiError:
    """The ApiError of its class: by HTTP status when there is one, else by code."""
    if status is None:
        return _BY_CODE.get(code, ApiError)(code, message, None)
    if status in _BY_STATUS:
        return _BY_STATUS[status](code, message, status)
    return (ServerError if status >= 500 else ApiError)(code, message, status)


def from_response_body(status: int, body: bytes, request_id: str | None = None) -> ApiError:
    """The error an HTTP error response stands for. A body that is not the API's error
    shape (a proxy's page, say) gives the code `HTTP<status>` and the body's start."""
    error = _from_body(status, body)
    error.request_id = request_id
    return error


def _from_body(status: int, body: bytes) -> ApiError:
    try:
        detail = json.loads(body)["error"]
        code, message = detail["code"], detail["message"]
        if isinstance(code, str) and isinstance(message, str):
            return api_error(code, message, status)
    except (ValueError, KeyError, TypeError):
        pass
    text = body[:200].decode("utf-8", "replace").strip()
    return api_error(f"HTTP{status}", text or "(no body)", status)
