"""SQS JSON requests signed by botocore's own SigV4 signer, sent with httpx, so tests can
sign at a chosen time, then alter what was signed."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from tests.conftest import REGION, TEST_ACCESS_KEY_ID, TEST_SECRET_ACCESS_KEY

JSON_1_0 = "application/x-amz-json-1.0"


@dataclass
class SqsRequest:
    """An SQS JSON 1.0 request; `sign()` adds the Authorization and X-Amz-Date headers."""

    url: str  # the gateway's base URL
    target: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    path: str = "/"  # and query string, if any

    def sign(
        self,
        access_key_id: str = TEST_ACCESS_KEY_ID,
        secret_access_key: str = TEST_SECRET_ACCESS_KEY,
        at: datetime | None = None,
        region: str = REGION,
        service: str = "sqs",
    ) -> SqsRequest:
        request = AWSRequest(
            method="POST",
            url=self.url + self.path,
            data=self.body,
            headers={"X-Amz-Target": self.target, "Content-Type": JSON_1_0, **self.headers},
        )
        signer = SigV4Auth(Credentials(access_key_id, secret_access_key), service, region)
        stamp = (at or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
        request.context["timestamp"] = stamp
        request.headers["X-Amz-Date"] = stamp
        canonical = signer.canonical_request(request)
        signature = signer.signature(signer.string_to_sign(request, canonical), request)
        signed_headers = signer.signed_headers(signer.headers_to_sign(request))
        request.headers["Authorization"] = (
            f"AWS4-HMAC-SHA256 Credential={signer.scope(request)}, "
            f"SignedHeaders={signed_headers}, Signature={signature}"
        )
        self.headers = dict(request.headers.items())
        return self

    def send(self) -> httpx.Response:
        headers = {"X-Amz-Target": self.target, "Content-Type": JSON_1_0, **self.headers}
        return httpx.post(self.url + self.path, content=self.body, headers=headers)


def signed_post(url: str, target: str, body: bytes) -> httpx.Response:
    """POSTs the request signed with the test key, now."""
    return SqsRequest(url, target, body).sign().send()


FORM = "application/x-www-form-urlencoded"


def signed_query_post(
    url: str, body: bytes, path: str = "/", service: str = "sqs"
) -> httpx.Response:
    """POSTs a Query-protocol (form-encoded) request, signed with the test key for
    `service`, now; the body is sent exactly as given, so it may be anything a client
    could send."""
    request = AWSRequest(method="POST", url=url + path, data=body, headers={"Content-Type": FORM})
    credentials = Credentials(TEST_ACCESS_KEY_ID, TEST_SECRET_ACCESS_KEY)
    SigV4Auth(credentials, service, REGION).add_auth(request)
    return httpx.post(url + path, content=body, headers=dict(request.headers.items()))
