from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_queue import CreateQueue
from ...models.error_response import ErrorResponse
from ...models.queue import Queue
from ...types import Response


def _get_kwargs(
    *,
    body: CreateQueue,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/queues",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | Queue | None:
    if response.status_code == 201:
        response_201 = Queue.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = ErrorResponse.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorResponse.from_dict(response.json())

        return response_401

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
) -> Response[ErrorResponse | Queue]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CreateQueue,
) -> Response[ErrorResponse | Queue]:
    """Create a queue

     A `.fifo` name makes a FIFO queue (with the attribute `FifoQueue` `"true"`). Creating a
    queue that exists with the same attributes returns it; with other attributes it is a
    409 QueueNameExists, and within 60 s of deleting a queue of that name a 409
    QueueDeletedRecently, as on SQS. `partitions` (or the attribute `Partitions`) splits
    its log, fixed once it is created: a PATCH may not change it.

    Args:
        body (CreateQueue):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | Queue]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: CreateQueue,
) -> ErrorResponse | Queue | None:
    """Create a queue

     A `.fifo` name makes a FIFO queue (with the attribute `FifoQueue` `"true"`). Creating a
    queue that exists with the same attributes returns it; with other attributes it is a
    409 QueueNameExists, and within 60 s of deleting a queue of that name a 409
    QueueDeletedRecently, as on SQS. `partitions` (or the attribute `Partitions`) splits
    its log, fixed once it is created: a PATCH may not change it.

    Args:
        body (CreateQueue):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | Queue
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CreateQueue,
) -> Response[ErrorResponse | Queue]:
    """Create a queue

     A `.fifo` name makes a FIFO queue (with the attribute `FifoQueue` `"true"`). Creating a
    queue that exists with the same attributes returns it; with other attributes it is a
    409 QueueNameExists, and within 60 s of deleting a queue of that name a 409
    QueueDeletedRecently, as on SQS. `partitions` (or the attribute `Partitions`) splits
    its log, fixed once it is created: a PATCH may not change it.

    Args:
        body (CreateQueue):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | Queue]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: CreateQueue,
) -> ErrorResponse | Queue | None:
    """Create a queue

     A `.fifo` name makes a FIFO queue (with the attribute `FifoQueue` `"true"`). Creating a
    queue that exists with the same attributes returns it; with other attributes it is a
    409 QueueNameExists, and within 60 s of deleting a queue of that name a 409
    QueueDeletedRecently, as on SQS. `partitions` (or the attribute `Partitions`) splits
    its log, fixed once it is created: a PATCH may not change it.

    Args:
        body (CreateQueue):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | Queue
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
