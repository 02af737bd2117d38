from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.move_task_started import MoveTaskStarted
from ...models.start_move_task import StartMoveTask
from ...types import UNSET, Response, Unset


def _get_kwargs(
    name: str,
    *,
    body: StartMoveTask | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/queues/{name}/move-tasks".format(
            name=quote(str(name), safe=""),
        ),
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | MoveTaskStarted | None:
    if response.status_code == 201:
        response_201 = MoveTaskStarted.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = ErrorResponse.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorResponse.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = ErrorResponse.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorResponse.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = ErrorResponse.from_dict(response.json())

        return response_413

    if response.status_code == 503:
        response_503 = ErrorResponse.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorResponse | MoveTaskStarted]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    name: str,
    *,
    client: AuthenticatedClient | Client,
    body: StartMoveTask | Unset = UNSET,
) -> Response[ErrorResponse | MoveTaskStarted]:
    """Start moving a dead-letter queue's messages

     The queue in the path must be some queue's dead-letter queue. Its messages go to
    `destination`, or each back to the queue it came from, at most `max_per_second`
    (1-500) a second. One task at a time per queue: starting another while one runs is a
    409 MoveTaskRunning.

    Args:
        name (str):
        body (StartMoveTask | Unset): Moves the dead-letter queue's messages to `destination`, or
            each back to the queue
            it came from.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | MoveTaskStarted]
    """

    kwargs = _get_kwargs(
        name=name,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    name: str,
    *,
    client: AuthenticatedClient | Client,
    body: StartMoveTask | Unset = UNSET,
) -> ErrorResponse | MoveTaskStarted | None:
    """Start moving a dead-letter queue's messages

     The queue in the path must be some queue's dead-letter queue. Its messages go to
    `destination`, or each back to the queue it came from, at most `max_per_second`
    (1-500) a second. One task at a time per queue: starting another while one runs is a
    409 MoveTaskRunning.

    Args:
        name (str):
        body (StartMoveTask | Unset): Moves the dead-letter queue's messages to `destination`, or
            each back to the queue
            it came from.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | MoveTaskStarted
    """

    return sync_detailed(
        name=name,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    name: str,
    *,
    client: AuthenticatedClient | Client,
    body: StartMoveTask | Unset = UNSET,
) -> Response[ErrorResponse | MoveTaskStarted]:
    """Start moving a dead-letter queue's messages

     The queue in the path must be some queue's dead-letter queue. Its messages go to
    `destination`, or each back to the queue it came from, at most `max_per_second`
    (1-500) a second. One task at a time per queue: starting another while one runs is a
    409 MoveTaskRunning.

    Args:
        name (str):
        body (StartMoveTask | Unset): Moves the dead-letter queue's messages to `destination`, or
            each back to the queue
            it came from.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | MoveTaskStarted]
    """

    kwargs = _get_kwargs(
        name=name,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    name: str,
    *,
    client: AuthenticatedClient | Client,
    body: StartMoveTask | Unset = UNSET,
) -> ErrorResponse | MoveTaskStarted | None:
    """Start moving a dead-letter queue's messages

     The queue in the path must be some queue's dead-letter queue. Its messages go to
    `destination`, or each back to the queue it came from, at most `max_per_second`
    (1-500) a second. One task at a time per queue: starting another while one runs is a
    409 MoveTaskRunning.

    Args:
        name (str):
        body (StartMoveTask | Unset): Moves the dead-letter queue's messages to `destination`, or
            each back to the queue
            it came from.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | MoveTaskStarted
    """

    return (
        await asyncio_detailed(
            name=name,
            client=client,
            body=body,
        )
    ).parsed
