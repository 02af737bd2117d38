from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.subscription_list import SubscriptionList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    name: str,
    *,
    limit: int | Unset = 100,
    after: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["after"] = after

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/topics/{name}/subscriptions".format(
            name=quote(str(name), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | SubscriptionList | None:
    if response.status_code == 200:
        response_200 = SubscriptionList.from_dict(response.json())

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

    if response.status_code == 503:
        response_503 = ErrorResponse.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorResponse | SubscriptionList]:
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
    limit: int | Unset = 100,
    after: str | Unset = UNSET,
) -> Response[ErrorResponse | SubscriptionList]:
    """List a topic's subscriptions

     In id order, at most `limit` of them after the id `after`; `next_after` is there when
    more follow.

    Args:
        name (str):
        limit (int | Unset):  Default: 100.
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | SubscriptionList]
    """

    kwargs = _get_kwargs(
        name=name,
        limit=limit,
        after=after,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    name: str,
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 100,
    after: str | Unset = UNSET,
) -> ErrorResponse | SubscriptionList | None:
    """List a topic's subscriptions

     In id order, at most `limit` of them after the id `after`; `next_after` is there when
    more follow.

    Args:
        name (str):
        limit (int | Unset):  Default: 100.
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | SubscriptionList
    """

    return sync_detailed(
        name=name,
        client=client,
        limit=limit,
        after=after,
    ).parsed


async def asyncio_detailed(
    name: str,
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 100,
    after: str | Unset = UNSET,
) -> Response[ErrorResponse | SubscriptionList]:
    """List a topic's subscriptions

     In id order, at most `limit` of them after the id `after`; `next_after` is there when
    more follow.

    Args:
        name (str):
        limit (int | Unset):  Default: 100.
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | SubscriptionList]
    """

    kwargs = _get_kwargs(
        name=name,
        limit=limit,
        after=after,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    name: str,
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 100,
    after: str | Unset = UNSET,
) -> ErrorResponse | SubscriptionList | None:
    """List a topic's subscriptions

     In id order, at most `limit` of them after the id `after`; `next_after` is there when
    more follow.

    Args:
        name (str):
        limit (int | Unset):  Default: 100.
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | SubscriptionList
    """

    return (
        await asyncio_detailed(
            name=name,
            client=client,
            limit=limit,
            after=after,
        )
    ).parsed
