from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.seek import Seek
from ...models.sought import Sought
from ...types import Response


def _get_kwargs(
    id: str,
    *,
    body: Seek,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/subscriptions/{id}/seek".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | Sought | None:
    if response.status_code == 200:
        response_200 = Sought.from_dict(response.json())

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
) -> Response[ErrorResponse | Sought]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: Seek,
) -> Response[ErrorResponse | Sought]:
    """Move a pull subscription's cursor (replay, or skip ahead)

     To an `offset` of the topic's log (0 to its end), or to the first message published
    at or after `timestamp`, reading tiered segments from the archive where the local
    log no longer has them. Every message from there on is delivered again; what was in
    flight is forgotten, and its receipts delete nothing. Other subscriptions are a 400.

    Args:
        id (str):
        body (Seek): Where to move a pull subscription's cursor: an `offset`, or the first message
            published at or after `timestamp`. Give one of the two.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | Sought]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: Seek,
) -> ErrorResponse | Sought | None:
    """Move a pull subscription's cursor (replay, or skip ahead)

     To an `offset` of the topic's log (0 to its end), or to the first message published
    at or after `timestamp`, reading tiered segments from the archive where the local
    log no longer has them. Every message from there on is delivered again; what was in
    flight is forgotten, and its receipts delete nothing. Other subscriptions are a 400.

    Args:
        id (str):
        body (Seek): Where to move a pull subscription's cursor: an `offset`, or the first message
            published at or after `timestamp`. Give one of the two.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | Sought
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: Seek,
) -> Response[ErrorResponse | Sought]:
    """Move a pull subscription's cursor (replay, or skip ahead)

     To an `offset` of the topic's log (0 to its end), or to the first message published
    at or after `timestamp`, reading tiered segments from the archive where the local
    log no longer has them. Every message from there on is delivered again; what was in
    flight is forgotten, and its receipts delete nothing. Other subscriptions are a 400.

    Args:
        id (str):
        body (Seek): Where to move a pull subscription's cursor: an `offset`, or the first message
            published at or after `timestamp`. Give one of the two.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | Sought]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: Seek,
) -> ErrorResponse | Sought | None:
    """Move a pull subscription's cursor (replay, or skip ahead)

     To an `offset` of the topic's log (0 to its end), or to the first message published
    at or after `timestamp`, reading tiered segments from the archive where the local
    log no longer has them. Every message from there on is delivered again; what was in
    flight is forgotten, and its receipts delete nothing. Other subscriptions are a 400.

    Args:
        id (str):
        body (Seek): Where to move a pull subscription's cursor: an `offset`, or the first message
            published at or after `timestamp`. Give one of the two.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | Sought
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed
