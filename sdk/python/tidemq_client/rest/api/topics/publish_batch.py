from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.send_batch import SendBatch
from ...models.send_batch_results import SendBatchResults
from ...types import Response


def _get_kwargs(
    name: str,
    *,
    body: SendBatch,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/topics/{name}/messages/batch".format(
            name=quote(str(name), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | SendBatchResults | None:
    if response.status_code == 200:
        response_200 = SendBatchResults.from_dict(response.json())

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
) -> Response[ErrorResponse | SendBatchResults]:
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
    body: SendBatch,
) -> Response[ErrorResponse | SendBatchResults]:
    """Publish up to 100 messages

     One log append for all of them. Each entry succeeds or fails on its own (`results`,
    in request order, carry `message_id` or `error`); the whole request is refused, with
    nothing published, when it is malformed or has no or more than 100 entries.

    Args:
        name (str):
        body (SendBatch):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | SendBatchResults]
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
    body: SendBatch,
) -> ErrorResponse | SendBatchResults | None:
    """Publish up to 100 messages

     One log append for all of them. Each entry succeeds or fails on its own (`results`,
    in request order, carry `message_id` or `error`); the whole request is refused, with
    nothing published, when it is malformed or has no or more than 100 entries.

    Args:
        name (str):
        body (SendBatch):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | SendBatchResults
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
    body: SendBatch,
) -> Response[ErrorResponse | SendBatchResults]:
    """Publish up to 100 messages

     One log append for all of them. Each entry succeeds or fails on its own (`results`,
    in request order, carry `message_id` or `error`); the whole request is refused, with
    nothing published, when it is malformed or has no or more than 100 entries.

    Args:
        name (str):
        body (SendBatch):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | SendBatchResults]
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
    body: SendBatch,
) -> ErrorResponse | SendBatchResults | None:
    """Publish up to 100 messages

     One log append for all of them. Each entry succeeds or fails on its own (`results`,
    in request order, carry `message_id` or `error`); the whole request is refused, with
    nothing published, when it is malformed or has no or more than 100 entries.

    Args:
        name (str):
        body (SendBatch):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | SendBatchResults
    """

    return (
        await asyncio_detailed(
            name=name,
            client=client,
            body=body,
        )
    ).parsed
