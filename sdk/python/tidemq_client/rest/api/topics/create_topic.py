from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_topic import CreateTopic
from ...models.error_response import ErrorResponse
from ...models.topic import Topic
from ...types import Response


def _get_kwargs(
    *,
    body: CreateTopic,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/topics",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | Topic | None:
    if response.status_code == 201:
        response_201 = Topic.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = ErrorResponse.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorResponse.from_dict(response.json())

        return response_401

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
) -> Response[ErrorResponse | Topic]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CreateTopic,
) -> Response[ErrorResponse | Topic]:
    """Create a topic

     A `.fifo` name makes a FIFO topic (with the attribute `FifoTopic` `"true"`). Creating
    a topic that exists with the same attributes returns it, as SNS's CreateTopic does;
    other attributes are a 400 InvalidParameter.

    Args:
        body (CreateTopic):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | Topic]
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
    body: CreateTopic,
) -> ErrorResponse | Topic | None:
    """Create a topic

     A `.fifo` name makes a FIFO topic (with the attribute `FifoTopic` `"true"`). Creating
    a topic that exists with the same attributes returns it, as SNS's CreateTopic does;
    other attributes are a 400 InvalidParameter.

    Args:
        body (CreateTopic):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | Topic
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CreateTopic,
) -> Response[ErrorResponse | Topic]:
    """Create a topic

     A `.fifo` name makes a FIFO topic (with the attribute `FifoTopic` `"true"`). Creating
    a topic that exists with the same attributes returns it, as SNS's CreateTopic does;
    other attributes are a 400 InvalidParameter.

    Args:
        body (CreateTopic):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | Topic]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: CreateTopic,
) -> ErrorResponse | Topic | None:
    """Create a topic

     A `.fifo` name makes a FIFO topic (with the attribute `FifoTopic` `"true"`). Creating
    a topic that exists with the same attributes returns it, as SNS's CreateTopic does;
    other attributes are a 400 InvalidParameter.

    Args:
        body (CreateTopic):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | Topic
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
