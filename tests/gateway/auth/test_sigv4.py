"""SigV4 verification against AWS's published examples and against botocore's signer."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from urllib.parse import quote, unquote, urlsplit

import pytest
from botocore.auth import SigV4Auth, SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from hypothesis import given
from hypothesis import strategies as st
from starlette.requests import Request

from gateway.auth import sigv4
from gateway.auth.errors import RequestExpired, SignatureDoesNotMatch

# AWS's documentation examples (the SigV4 test suite's "get-vanilla" request).
EXAMPLE_KEY_ID = "AKIDEXAMPLE"
EXAMPLE_SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
SIGNED_AT = datetime(2015, 8, 30, 12, 36, tzinfo=UTC)
SIGNED_AT_MS = int(SIGNED_AT.timestamp() * 1000)


def _starlette(request: AWSRequest, body: bytes | None = None) -> Request:
    parts = urlsplit(request.url)
    headers = [(name.lower().encode(), value.encode()) for name, value in request.headers.items()]
    if "host" not in {name for name, _ in headers}:
        headers.append((b"host", parts.netloc.encode()))
    return Request(
        {
            "type": "http",
            "method": request.method,
            "scheme": parts.scheme,
            "server": ("example.amazonaws.com", 443),
            "path": unquote(parts.path),
            "raw_path": parts.path.encode(),
            "query_string": parts.query.encode(),
            "headers": headers,
        }
    )


def _sign(request: AWSRequest, service: str = "sqs", secret: str = EXAMPLE_SECRET) -> None:
    signer = SigV4Auth(Credentials(EXAMPLE_KEY_ID, secret), service, "us-east-1")
    stamp = SIGNED_AT.strftime("%Y%m%dT%H%M%SZ")
    request.context["timestamp"] = stamp
    if "Date" not in request.headers:
        request.headers["X-Amz-Date"] = stamp
    canonical = signer.canonical_request(request)
    signature = signer.signature(signer.string_to_sign(request, canonical), request)
    signed_headers = signer.signed_headers(signer.headers_to_sign(request))
    request.headers["Authorization"] = (
        f"AWS4-HMAC-SHA256 Credential={signer.scope(request)}, "
        f"SignedHeaders={signed_headers}, Signature={signature}"
    )


def test_the_signing_key_is_derived_as_in_awss_example() -> None:
    key = sigv4.signing_key(EXAMPLE_SECRET, "20120215", "us-east-1", "iam")
    assert key.hex() == "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d"


def test_the_get_vanilla_example_signs_as_aws_says() -> None:
    request = Request(
        {
            "type": "http",
            "method": "GET",
            "path": "/",
            "raw_path": b"/",
            "query_string": b"",
            "headers": [(b"host", b"example.amazonaws.com"), (b"x-amz-date", b"20150830T123600Z")],
        }
    )
    canonical = sigv4.canonical_request(request, "host;x-amz-date", hashlib.sha256().hexdigest())
    credential = sigv4.Credential(
        EXAMPLE_KEY_ID, "20150830", "us-east-1", "service", "aws4_request"
    )
    assert (
        sigv4.signature(EXAMPLE_SECRET, credential, "20150830T123600Z", canonical)
        == "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
    )


@pytest.mark.parametrize(
    ("raw_path", "canonical"),
    [
        (b"/", b"/"),
        (b"", b"/"),
        (b"/a/./b/../c//d/", b"/a/c/d/"),
        (b"/a%20b", b"/a%2520b"),
        (b"/~user/x-y_z.txt", b"/~user/x-y_z.txt"),
        (b"/..", b"/"),
    ],
)
def test_paths_are_normalised_and_encoded_twice(raw_path: bytes, canonical: bytes) -> None:
    assert sigv4.canonical_uri(raw_path) == canonical


def test_query_strings_are_sorted_and_encoded_the_aws_way() -> None:
    assert sigv4.canonical_query(b"b=2&a=x y&a=1&empty&c=%7e") == b"a=1&a=x%20y&b=2&c=~&empty="
    assert sigv4.canonical_query(b"") == b""


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_HEADER_VALUE = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=20)


@given(
    segments=st.lists(_TEXT, max_size=4),
    params=st.lists(st.tuples(_TEXT, _TEXT), max_size=4),
    header_value=_HEADER_VALUE,
    body=st.binary(max_size=300),
)
def test_whatever_botocore_signs_verifies_and_any_other_body_does_not(
    segments: list[str], params: list[tuple[str, str]], header_value: str, body: bytes
) -> None:
    path = "/" + "/".join(quote(s, safe="") for s in segments)
    query = "&".join(f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}" for k, v in params)
    request = AWSRequest(
        method="POST",
        url=f"https://example.amazonaws.com{path}" + (f"?{query}" if query else ""),
        data=body,
        headers={"X-Amz-Target": "AmazonSQS.SendMessage", "X-Custom": header_value},
    )
    _sign(request)
    starlette = _starlette(request)
    signed = sigv4.parse(starlette, SIGNED_AT_MS, service="sqs")
    assert signed.credential.access_key_id == EXAMPLE_KEY_ID
    sigv4.verify(signed, starlette, body, EXAMPLE_SECRET)
    with pytest.raises(SignatureDoesNotMatch):
        sigv4.verify(signed, starlette, body + b" ", EXAMPLE_SECRET)
    with pytest.raises(SignatureDoesNotMatch):
        sigv4.verify(signed, starlette, body, EXAMPLE_SECRET + "x")


def test_a_date_header_serves_when_there_is_no_x_amz_date() -> None:
    request = AWSRequest(
        method="POST",
        url="https://example.amazonaws.com/",
        data=b"{}",
        headers={"Date": "Sun, 30 Aug 2015 12:36:00 GMT"},
    )
    _sign(request)
    assert "X-Amz-Date" not in request.headers
    starlette = _starlette(request)
    signed = sigv4.parse(starlette, SIGNED_AT_MS, service="sqs")
    assert signed.amz_date == "20150830T123600Z"
    sigv4.verify(signed, starlette, b"{}", EXAMPLE_SECRET)


def test_skew_is_measured_against_the_clock_given() -> None:
    request = AWSRequest(method="POST", url="https://example.amazonaws.com/", data=b"")
    _sign(request)
    fifteen_minutes_ms = 15 * 60 * 1000
    sigv4.parse(_starlette(request), SIGNED_AT_MS + fifteen_minutes_ms, service="sqs")
    sigv4.parse(_starlette(request), SIGNED_AT_MS - fifteen_minutes_ms, service="sqs")
    with pytest.raises(RequestExpired, match="Signature expired: 20150830T123600Z"):
        sigv4.parse(_starlette(request), SIGNED_AT_MS + fifteen_minutes_ms + 1000, service="sqs")
    with pytest.raises(RequestExpired, match="not yet current"):
        sigv4.parse(_starlette(request), SIGNED_AT_MS - fifteen_minutes_ms - 1000, service="sqs")


@pytest.mark.parametrize(("signed_for", "expected"), [("sqs", "sns"), ("sns", "sqs")])
def test_the_scope_must_name_the_service_the_endpoint_serves(
    signed_for: str, expected: str
) -> None:
    request = AWSRequest(method="POST", url="https://example.amazonaws.com/", data=b"")
    _sign(request, service=signed_for)
    starlette = _starlette(request)
    assert sigv4.parse(starlette, SIGNED_AT_MS, service=signed_for).credential.service == (
        signed_for
    )
    with pytest.raises(
        SignatureDoesNotMatch, match=f"Credential should be scoped to correct service: '{expected}'"
    ):
        sigv4.parse(starlette, SIGNED_AT_MS, service=expected)


def test_the_claimed_service_is_read_from_the_header_or_a_presigned_url() -> None:
    request = AWSRequest(method="POST", url="https://example.amazonaws.com/", data=b"")
    _sign(request, service="sns")
    signed = _starlette(request)
    assert sigv4.claimed_service(signed) == "sns"
    assert not sigv4.is_unsigned(signed)

    presigned = AWSRequest(method="GET", url="https://example.amazonaws.com/?Action=ListTopics")
    SigV4QueryAuth(Credentials(EXAMPLE_KEY_ID, EXAMPLE_SECRET), "sns", "us-east-1").add_auth(
        presigned
    )
    assert "X-Amz-Credential=" in presigned.url
    assert sigv4.claimed_service(_starlette(presigned)) == "sns"
    assert not sigv4.is_unsigned(_starlette(presigned))

    plain = AWSRequest(method="GET", url="https://example.amazonaws.com/?Action=ListTopics")
    assert sigv4.claimed_service(_starlette(plain)) is None
    assert sigv4.is_unsigned(_starlette(plain))
    garbled = AWSRequest(
        method="GET", url="https://example.amazonaws.com/", headers={"Authorization": "Basic x"}
    )
    assert sigv4.claimed_service(_starlette(garbled)) is None
    assert not sigv4.is_unsigned(_starlette(garbled))
