"""Helpers for SNS tests on the wire: throwaway actions registered in the endpoint's table
(real handlers, run by the real gateway), signed Query requests, SNS's XML read back."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from gateway.sns.actions import ACTIONS, SnsContext
from tests.sigv4_signing import signed_query_post

NS = {"sns": "http://sns.amazonaws.com/doc/2010-03-31/"}
SQS_NS = {"sqs": "http://queue.amazonaws.com/doc/2012-11-05/"}


@dataclass
class Recorded:
    """What a throwaway action was called with, call after call."""

    calls: list[tuple[SnsContext, dict[str, Any]]] = field(default_factory=list)

    @property
    def only(self) -> tuple[SnsContext, dict[str, Any]]:
        assert len(self.calls) == 1, self.calls
        return self.calls[0]


def register(
    monkeypatch: pytest.MonkeyPatch, action: str, result: dict[str, Any] | Exception
) -> Recorded:
    """Serves `action` with a handler that records its calls and returns `result` (or
    raises it), for the test's duration."""
    recorded = Recorded()

    async def handler(context: SnsContext, params: dict[str, Any]) -> dict[str, Any]:
        recorded.calls.append((context, params))
        if isinstance(result, Exception):
            raise result
        return result

    monkeypatch.setitem(ACTIONS, action, handler)
    return recorded


def signed_sns_post(
    url: str, params: dict[str, str], service: str = "sns", path: str = "/"
) -> httpx.Response:
    """POSTs the form, signed with the test key for `service` (SNS's, unless told)."""
    return signed_query_post(url, urlencode(params).encode(), path=path, service=service)


def xml(response: httpx.Response) -> ET.Element:
    assert response.headers["content-type"].startswith("text/xml"), response.text
    return ET.fromstring(response.content)


def sns_error(response: httpx.Response) -> tuple[int, str, str]:
    """(HTTP status, Code, Message) of an SNS error response."""
    root = xml(response)
    assert root.tag == f"{{{NS['sns']}}}ErrorResponse", response.text
    code, message = root.find("sns:Error/sns:Code", NS), root.find("sns:Error/sns:Message", NS)
    assert code is not None, response.text
    assert message is not None, response.text
    return response.status_code, code.text or "", message.text or ""


def sqs_query_error(response: httpx.Response) -> tuple[int, str]:
    """(HTTP status, Code) of an SQS Query error response: the SQS endpoint answered."""
    code = xml(response).find("sqs:Error/sqs:Code", SQS_NS)
    assert code is not None, response.text
    return response.status_code, code.text or ""
