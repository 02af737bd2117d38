"""Credentials on REST requests: a bearer token, or an AWS Signature Version 4.

TideMQ's REST API takes either (docs/api.md). A SigV4 signature is by an access key for
service `sqs`, any region, and covers the method, path, query, the `host`,
`x-amz-date`, `x-amz-content-sha256` and `content-type` headers, and the body:

    canonical request = method \\n canonical URI \\n canonical query \\n
                        "name:value\\n" per signed header \\n signed header names \\n
                        hex SHA-256(body)
    string to sign    = AWS4-HMAC-SHA256 \\n <x-amz-date> \\n <date>/<region>/sqs/aws4_request \\n
                        hex SHA-256(canonical request)
    signing key       = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service),
                             "aws4_request")

with the URI's path normalized and percent-encoded once more, as AWS specifies for every
service but S3. Both are httpx.Auth, so they sign each attempt of a retried request anew.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Generator
from datetime import UTC, datetime
from urllib.parse import quote, unquote

import httpx

ALGORITHM = "AWS4-HMAC-SHA256"
SERVICE = "sqs"
_SIGNED = ("content-type", "host", "x-amz-content-sha256", "x-amz-date")


class BearerToken(httpx.Auth):
    """`Authorization: Bearer <token>`, a token from `tidemq keys token`."""

    def __init__(self, token: str) -> None:
        self.token = token

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = f"Bearer {self.token}"
        yield request


class SigV4(httpx.Auth):
    """Signs each request with an access key. `now` is the clock the date is read from."""

    requires_request_body = True

    def __init__(
        self,
        access_key_id: str,
        secret_access_key: str,
        region: str = "us-east-1",
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.access_key_id = access_key_id
        self.secret_access_key = secret_access_key
        self.region = region
        self.now = now

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        self.sign(request)
        yield request

    def sign(self, request: httpx.Request) -> None:
        """Adds X-Amz-Date, X-Amz-Content-SHA256 and Authorization to the request."""
        amz_date = self.now().astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
        payload_hash = hashlib.sha256(request.content).hexdigest()
        request.headers["x-amz-date"] = amz_date
        request.headers["x-amz-content-sha256"] = payload_hash
        names = [name for name in _SIGNED if name in request.headers]
        canonical = "\n".join(
            [
                request.method.upper(),
                canonical_uri(request.url.raw_path.split(b"?", 1)[0]),
                canonical_query(request.url.query),
                "".join(f"{name}:{_trimmed(request.headers[name])}\n" for name in names),
                ";".join(names),
                payload_hash,
            ]
        )
        scope = f"{amz_date[:8]}/{self.region}/{SERVICE}/aws4_request"
        string_to_sign = "\n".join(
            [ALGORITHM, amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()]
        )
        key = signing_key(self.secret_access_key, amz_date[:8], self.region, SERVICE)
        signature = hmac.new(key, string_to_sign.encode(), hashlib.sha256).hexdigest()
        request.headers["Authorization"] = (
            f"{ALGORITHM} Credential={self.access_key_id}/{scope}, "
            f"SignedHeaders={';'.join(names)}, Signature={signature}"
        )


def signing_key(secret: str, date: str, region: str, service: str) -> bytes:
    key = ("AWS4" + secret).encode()
    for part in (date, region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return key


def canonical_uri(raw_path: bytes) -> str:
    """The path without empty or dot segments, percent-encoded once more."""
    segments: list[str] = []
    for segment in raw_path.decode("latin-1").split("/"):
        if segment == "..":
            if segments:
                segments.pop()
        elif segment not in ("", "."):
            segments.append(segment)
    path = "/" + "/".join(segments)
    if raw_path.endswith(b"/") and segments:
        path += "/"
    return quote(path.encode("latin-1"), safe="/~")


def canonical_query(raw_query: bytes) -> str:
    """Each name and value encoded as AWS specifies (all but A-Z a-z 0-9 - _ . ~), sorted."""
    if not raw_query:
        return ""
    pairs = []
    for pair in raw_query.decode("latin-1").split("&"):
        name, _, value = pair.partition("=")
        pairs.append((_aws_quote(name), _aws_quote(value)))
    return "&".join(f"{name}={value}" for name, value in sorted(pairs))


def _aws_quote(text: str) -> str:
    return quote(unquote(text, encoding="latin-1").encode("latin-1"), safe="-_.~")


def _trimmed(value: str) -> str:
    return " ".join(value.split())
