from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.queue_list import QueueList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    prefix: str | Unset = "",
    limit: int | Unset = 1000,
    after: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["prefix"] = prefix

    params["limit"] = limit

    params["after"] = after

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/queues",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | QueueList | None:
    if response.status_code == 200:
        response_200 = QueueList.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorResponse.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorResponse.from_dict(response.json())

        return response_401

    if response.status_code == 503:
        response_503 = ErrorResponse.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorResponse | QueueList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    prefix: str | Unset = "",
    limit: int | Unset = 1000,
    after: str | Unset = UNSET,
) -> Response[ErrorResponse | QueueList]:
    """List queues

     The caller's queues in name order, those starting with `prefix` only, at most `limit`
    of them after the name `after`; `next_after` is there when more follow.

    Args:
        prefix (str | Unset):  Default: ''.
        limit (int | Unset):  Default: 1000.
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | QueueList]
    """

    kwargs = _get_kwargs(
        prefix=prefix,
        limit=limit,
        after=after,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    prefix: str | Unset = "",
    limit: int | Unset = 1000,
    after: str | Unset = UNSET,
) -> ErrorResponse | QueueList | None:
    """List queues

     The caller's queues in name order, those starting with `prefix` only, at most `limit`
    of them after the name `after`; `next_after` is there when more follow.

    Args:
        prefix (str | Unset):  Default: ''.
        limit (int | Unset):  Default: 1000.
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | QueueList
    """

    return sync_detailed(
        client=client,
        prefix=prefix,
        limit=limit,
        after=after,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    prefix: str | Unset = "",
    limit: int | Unset = 1000,
    after: str | Unset = UNSET,
) -> Response[ErrorResponse | QueueList]:
    """List queues

     The caller's queues in name order, those starting with `prefix` only, at most `limit`
    of them after the name `after`; `next_after` is there when more follow.

    Args:
        prefix (str | Unset):  Default: ''.
        limit (int | Unset):  Default: 1000.
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | QueueList]
    """

    kwargs = _get_kwargs(
        prefix=prefix,
        limit=limit,
        after=after,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    prefix: str | Unset = "",
    limit: int | Unset = 1000,
    after: str | Unset = UNSET,
) -> ErrorResponse | QueueList | None:
    """List queues

     The caller's queues in name order, those starting with `prefix` only, at most `limit`
    of them after the name `after`; `next_after` is there when more follow.

    Args:
        prefix (str | Unset):  Default: ''.
        limit (int | Unset):  Default: 1000.
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | QueueList
    """

    return (
        await asyncio_detailed(
            client=client,
            prefix=prefix,
            limit=limit,
            after=after,
        )
    ).parsed
