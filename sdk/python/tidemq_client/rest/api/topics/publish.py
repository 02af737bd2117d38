from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.published_message import PublishedMessage
from ...models.send_message import SendMessage
from ...types import Response


def _get_kwargs(
    name: str,
    *,
    body: SendMessage,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/topics/{name}/messages".format(
            name=quote(str(name), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | PublishedMessage | None:
    if response.status_code == 201:
        response_201 = PublishedMessage.from_dict(response.json())

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
) -> Response[ErrorResponse | PublishedMessage]:
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
    body: SendMessage,
) -> Response[ErrorResponse | PublishedMessage]:
    """Publish a message

     Acknowledged once the message is durable in the topic's log; every subscription gets
    it from there. `subject` is SNS's Subject; FIFO topics need `group_id` (and
    `dedup_id` unless the topic has ContentBasedDeduplication), and a duplicate within
    five minutes answers with the first publish's `message_id` and `sequence_number`.
    Topics take no delays and no system attributes. At most 256 KiB of body and
    attributes, as on SNS.

    Args:
        name (str):
        body (SendMessage): A message to send to a queue or publish to a topic. FIFO queues and
            topics need
            `group_id`, and `dedup_id` unless they have ContentBasedDeduplication; FIFO queues
            take no per-message delay. Topics take `subject`, and neither delays nor system
            attributes; queues take no `subject`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | PublishedMessage]
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
    body: SendMessage,
) -> ErrorResponse | PublishedMessage | None:
    """Publish a message

     Acknowledged once the message is durable in the topic's log; every subscription gets
    it from there. `subject` is SNS's Subject; FIFO topics need `group_id` (and
    `dedup_id` unless the topic has ContentBasedDeduplication), and a duplicate within
    five minutes answers with the first publish's `message_id` and `sequence_number`.
    Topics take no delays and no system attributes. At most 256 KiB of body and
    attributes, as on SNS.

    Args:
        name (str):
        body (SendMessage): A message to send to a queue or publish to a topic. FIFO queues and
            topics need
            `group_id`, and `dedup_id` unless they have ContentBasedDeduplication; FIFO queues
            take no per-message delay. Topics take `subject`, and neither delays nor system
            attributes; queues take no `subject`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | PublishedMessage
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
    body: SendMessage,
) -> Response[ErrorResponse | PublishedMessage]:
    """Publish a message

     Acknowledged once the message is durable in the topic's log; every subscription gets
    it from there. `subject` is SNS's Subject; FIFO topics need `group_id` (and
    `dedup_id` unless the topic has ContentBasedDeduplication), and a duplicate within
    five minutes answers with the first publish's `message_id` and `sequence_number`.
    Topics take no delays and no system attributes. At most 256 KiB of body and
    attributes, as on SNS.

    Args:
        name (str):
        body (SendMessage): A message to send to a queue or publish to a topic. FIFO queues and
            topics need
            `group_id`, and `dedup_id` unless they have ContentBasedDeduplication; FIFO queues
            take no per-message delay. Topics take `subject`, and neither delays nor system
            attributes; queues take no `subject`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | PublishedMessage]
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
    body: SendMessage,
) -> ErrorResponse | PublishedMessage | None:
    """Publish a message

     Acknowledged once the message is durable in the topic's log; every subscription gets
    it from there. `subject` is SNS's Subject; FIFO topics need `group_id` (and
    `dedup_id` unless the topic has ContentBasedDeduplication), and a duplicate within
    five minutes answers with the first publish's `message_id` and `sequence_number`.
    Topics take no delays and no system attributes. At most 256 KiB of body and
    attributes, as on SNS.

    Args:
        name (str):
        body (SendMessage): A message to send to a queue or publish to a topic. FIFO queues and
            topics need
            `group_id`, and `dedup_id` unless they have ContentBasedDeduplication; FIFO queues
            take no per-message delay. Topics take `subject`, and neither delays nor system
            attributes; queues take no `subject`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | PublishedMessage
    """

    return (
        await asyncio_detailed(
            name=name,
            client=client,
            body=body,
        )
    ).parsed
