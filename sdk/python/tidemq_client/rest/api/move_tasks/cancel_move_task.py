from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.move_task_cancelled import MoveTaskCancelled
from ...types import Response


def _get_kwargs(
    handle: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/move-tasks/{handle}/cancel".format(
            handle=quote(str(handle), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | MoveTaskCancelled | None:
    if response.status_code == 200:
        response_200 = MoveTaskCancelled.from_dict(response.json())

        return response_200

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

    if response.status_code == 503:
        response_503 = ErrorResponse.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorResponse | MoveTaskCancelled]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    handle: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[ErrorResponse | MoveTaskCancelled]:
    """Cancel a message move task

     The task stops after its current round; the messages it moved stay moved. A task
    that has finished is a 409 MoveTaskNotRunning; a handle that names no task of the
    caller's account, a 404 ResourceNotFoundException.

    Args:
        handle (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | MoveTaskCancelled]
    """

    kwargs = _get_kwargs(
        handle=handle,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    handle: str,
    *,
    client: AuthenticatedClient | Client,
) -> ErrorResponse | MoveTaskCancelled | None:
    """Cancel a message move task

     The task stops after its current round; the messages it moved stay moved. A task
    that has finished is a 409 MoveTaskNotRunning; a handle that names no task of the
    caller's account, a 404 ResourceNotFoundException.

    Args:
        handle (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | MoveTaskCancelled
    """

    return sync_detailed(
        handle=handle,
        client=client,
    ).parsed


async def asyncio_detailed(
    handle: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[ErrorResponse | MoveTaskCancelled]:
    """Cancel a message move task

     The task stops after its current round; the messages it moved stay moved. A task
    that has finished is a 409 MoveTaskNotRunning; a handle that names no task of the
    caller's account, a 404 ResourceNotFoundException.

    Args:
        handle (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | MoveTaskCancelled]
    """

    kwargs = _get_kwargs(
        handle=handle,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    handle: str,
    *,
    client: AuthenticatedClient | Client,
) -> ErrorResponse | MoveTaskCancelled | None:
    """Cancel a message move task

     The task stops after its current round; the messages it moved stay moved. A task
    that has finished is a 409 MoveTaskNotRunning; a handle that names no task of the
    caller's account, a 404 ResourceNotFoundException.

    Args:
        handle (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | MoveTaskCancelled
    """

    return (
        await asyncio_detailed(
            handle=handle,
            client=client,
        )
    ).parsed
