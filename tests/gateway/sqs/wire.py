"""Helpers of the SQS tests that speak the wire formats directly: signed Query requests
from a dict, their XML (which must always be well-formed), and the error they carry."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any
from urllib.parse import quote, urlencode

import httpx

from tests.conftest import RunningGateway
from tests.sigv4_signing import signed_query_post

NS = {"sqs": "http://queue.amazonaws.com/doc/2012-11-05/"}


def form(params: dict[str, str]) -> bytes:
    """A Query request's body, every parameter percent-encoded as botocore does."""
    return urlencode({"Version": "2012-11-05", **params}, quote_via=quote).encode()


def query(gateway: RunningGateway, params: dict[str, str]) -> httpx.Response:
    return signed_query_post(gateway.url, form(params))


def xml(response: httpx.Response) -> ET.Element:
    """The response's XML, which must be well-formed whatever the request was."""
    assert response.headers["content-type"].startswith("text/xml")
    return ET.fromstring(response.content)


def query_error(response: httpx.Response) -> tuple[int, str]:
    """(HTTP status, the error's Code) of a Query error response."""
    found = xml(response).find("sqs:Error/sqs:Code", NS)
    assert found is not None, response.text
    return response.status_code, found.text or ""


def new_queue(sqs: Any, name: str = "strict") -> str:
    url: str = sqs.create_queue(QueueName=name)["QueueUrl"]
    return url


def is_empty(sqs: Any, url: str) -> bool:
    return "Messages" not in sqs.receive_message(QueueUrl=url, WaitTimeSeconds=0)
