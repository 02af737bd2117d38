from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_subscription import CreateSubscription
from ...models.error_response import ErrorResponse
from ...models.subscription import Subscription
from ...types import Response


def _get_kwargs(
    name: str,
    *,
    body: CreateSubscription,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/topics/{name}/subscriptions".format(
            name=quote(str(name), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | Subscription | None:
    if response.status_code == 201:
        response_201 = Subscription.from_dict(response.json())

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
) -> Response[ErrorResponse | Subscription]:
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
    body: CreateSubscription,
) -> Response[ErrorResponse | Subscription]:
    """Subscribe to a topic

     A `pull` subscription (named by its `endpoint`) gets every message published from now
    on, to receive with /v1/subscriptions/{id}/receive or over WebSocket; an `sqs`
    subscription copies them into the queue whose ARN is the endpoint; `http` and `https`
    POST them to a webhook, once it confirmed the subscription. Subscribing an endpoint
    that is subscribed already returns its subscription (with other attributes: a 400).

    Args:
        name (str):
        body (CreateSubscription): Subscribe to the topic. `pull` subscriptions are received from
            with this API and
            the WebSocket API; TideMQ delivers the others itself.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | Subscription]
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
    body: CreateSubscription,
) -> ErrorResponse | Subscription | None:
    """Subscribe to a topic

     A `pull` subscription (named by its `endpoint`) gets every message published from now
    on, to receive with /v1/subscriptions/{id}/receive or over WebSocket; an `sqs`
    subscription copies them into the queue whose ARN is the endpoint; `http` and `https`
    POST them to a webhook, once it confirmed the subscription. Subscribing an endpoint
    that is subscribed already returns its subscription (with other attributes: a 400).

    Args:
        name (str):
        body (CreateSubscription): Subscribe to the topic. `pull` subscriptions are received from
            with this API and
            the WebSocket API; TideMQ delivers the others itself.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | Subscription
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
    body: CreateSubscription,
) -> Response[ErrorResponse | Subscription]:
    """Subscribe to a topic

     A `pull` subscription (named by its `endpoint`) gets every message published from now
    on, to receive with /v1/subscriptions/{id}/receive or over WebSocket; an `sqs`
    subscription copies them into the queue whose ARN is the endpoint; `http` and `https`
    POST them to a webhook, once it confirmed the subscription. Subscribing an endpoint
    that is subscribed already returns its subscription (with other attributes: a 400).

    Args:
        name (str):
        body (CreateSubscription): Subscribe to the topic. `pull` subscriptions are received from
            with this API and
            the WebSocket API; TideMQ delivers the others itself.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | Subscription]
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
    body: CreateSubscription,
) -> ErrorResponse | Subscription | None:
    """Subscribe to a topic

     A `pull` subscription (named by its `endpoint`) gets every message published from now
    on, to receive with /v1/subscriptions/{id}/receive or over WebSocket; an `sqs`
    subscription copies them into the queue whose ARN is the endpoint; `http` and `https`
    POST them to a webhook, once it confirmed the subscription. Subscribing an endpoint
    that is subscribed already returns its subscription (with other attributes: a 400).

    Args:
        name (str):
        body (CreateSubscription): Subscribe to the topic. `pull` subscriptions are received from
            with this API and
            the WebSocket API; TideMQ delivers the others itself.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | Subscription
    """

    return (
        await asyncio_detailed(
            name=name,
            client=client,
            body=body,
        )
    ).parsed
