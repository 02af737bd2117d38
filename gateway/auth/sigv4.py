"""AWS Signature Version 4, verified on a Starlette request (the Authorization header form).

A signed request carries

    Authorization: AWS4-HMAC-SHA256 Credential=<key id>/<yyyymmdd>/<region>/<service>/aws4_request,
                   SignedHeaders=<h1;h2;...>, Signature=<64 hex digits>

and an `X-Amz-Date` (or `Date`) header. Verification rebuilds what the client signed,
as AWS specifies it:

    canonical request = method \\n canonical URI \\n canonical query string \\n
                        canonical headers (one "name:trimmed values" line each) \\n
                        signed headers \\n hex SHA-256 of the body
    string to sign    = AWS4-HMAC-SHA256 \\n <X-Amz-Date> \\n <scope> \\n hex SHA-256(canonical)
    signing key       = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service),
                             "aws4_request")
    signature         = hex HMAC(signing key, string to sign)

and compares signatures in constant time. The body hash is always computed from the body
received: an `x-amz-content-sha256` header must equal it, so no request is accepted with
a body its signature does not cover (UNSIGNED-PAYLOAD and streaming payloads are refused).

Checked before any key is looked up: the header's shape, the date (within 15 minutes of
the gateway's clock, passed in as `now_ms`), the credential scope (its day is the date's
day, its service the one the endpoint serves, `sqs` or `sns`, any region). Presigned
(query-string) signatures are refused: a presigned URL cannot cover a request's body,
which holds every parameter of an SQS JSON action or of a posted Query form.

`claimed_service` reads, without checking anything, which service a request says it was
signed for: the shared endpoint routes by it (gateway/aws_endpoint.py).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from urllib.parse import quote, unquote

from starlette.requests import Request

from gateway.auth.errors import (
    IncompleteSignature,
    InvalidClientTokenId,
    MissingAuthenticationToken,
    RequestExpired,
    SignatureDoesNotMatch,
)

ALGORITHM = "AWS4-HMAC-SHA256"
TERMINATOR = "aws4_request"
MAX_SKEW = timedelta(minutes=15)
# AWS's words for a request that is not signed at all.
NO_SIGNATURE = (
    "The request must contain either a valid (registered) AWS access key ID or X.509 certificate."
)
_AMZ_DATE_FORMAT = "%Y%m%dT%H%M%SZ"
_AMZ_DATE = re.compile(r"^[0-9]{8}T[0-9]{6}Z\Z")
_PRESIGNED_PARAMS = ("x-amz-algorithm", "x-amz-credential", "x-amz-signature")
# The service element of a Credential: `Credential=<key id>/<date>/<region>/<service>/...`.
_CREDENTIAL_SERVICE = re.compile(r"Credential=[^/,\s]*/[^/,\s]*/[^/,\s]*/([^/,\s]*)/")


@dataclass(frozen=True, slots=True)
class Credential:
    """The Credential element: the key id and the scope the signature is valid for."""

    access_key_id: str
    date: str  # yyyymmdd
    region: str
    service: str
    terminator: str

    @property
    def scope(self) -> str:
        return f"{self.date}/{self.region}/{self.service}/{self.terminator}"


@dataclass(frozen=True, slots=True)
class SignedRequest:
    """What a request claims, checked for shape, date and scope but not yet verified."""

    credential: Credential
    signed_headers: str  # as sent: lower-case names joined by ";"
    signature: str
    amz_date: str  # yyyymmddThhmmssZ: the X-Amz-Date, or the Date header in that form


def parse(request: Request, now_ms: int, *, service: str) -> SignedRequest:
    """The request's signature claim, for `service` (`sqs`, `sns`): raises an AuthError if
    it cannot be verified at all, or is scoped to another service."""
    if _presigned(request.scope.get("query_string", b"")):
        raise IncompleteSignature(
            "Presigned (query-string) signatures are not supported; sign the request "
            "with an Authorization header."
        )
    authorization = request.headers.get("authorization")
    if authorization is None:
        raise MissingAuthenticationToken(NO_SIGNATURE)
    if "x-amz-security-token" in request.headers:
        raise InvalidClientTokenId("The security token included in the request is invalid.")
    credential, signed_headers, claimed = _parse_authorization(authorization)
    amz_date = _amz_date(request)
    _check_scope(credential, amz_date, service)
    _check_skew(amz_date, now_ms)
    if "host" not in signed_headers.split(";"):
        raise IncompleteSignature("'Host' must be a 'SignedHeader' in the AWS Authorization.")
    return SignedRequest(credential, signed_headers, claimed, amz_date)


def claimed_service(request: Request) -> str | None:
    """The service the request's credential scope names (in its Authorization header, or
    in a presigned URL's X-Amz-Credential), or None if it names none that can be read.
    A claim only: nothing of the signature is checked."""
    authorization = request.headers.get("authorization")
    if authorization is not None:
        match = _CREDENTIAL_SERVICE.search(authorization)
        return match.group(1) if match else None
    for pair in request.scope.get("query_string", b"").decode("latin-1").split("&"):
        name, _, value = pair.partition("=")
        if unquote(name).lower() == "x-amz-credential":
            match = _CREDENTIAL_SERVICE.search("Credential=" + unquote(value))
            return match.group(1) if match else None
    return None


def is_unsigned(request: Request) -> bool:
    """Neither an Authorization header nor a presigned URL's parameters: no claim at all."""
    return "authorization" not in request.headers and not _presigned(
        request.scope.get("query_string", b"")
    )


def verify(signed: SignedRequest, request: Request, body: bytes, secret: str) -> None:
    """Raises SignatureDoesNotMatch unless the secret signed this very request and body."""
    payload_hash = hashlib.sha256(body).hexdigest()
    claimed_hash = request.headers.get("x-amz-content-sha256")
    if claimed_hash is not None and claimed_hash != payload_hash:
        raise SignatureDoesNotMatch(
            "The provided 'x-amz-content-sha256' header does not match what was computed."
        )
    canonical = canonical_request(request, signed.signed_headers, payload_hash)
    expected = signature(secret, signed.credential, signed.amz_date, canonical)
    if not hmac.compare_digest(expected.encode(), signed.signature.encode("latin-1")):
        raise SignatureDoesNotMatch(
            "The request signature we calculated does not match the signature you "
            "provided. Check your AWS Secret Access Key and signing method. Consult the "
            "service documentation for details."
        )


def canonical_request(request: Request, signed_headers: str, payload_hash: str) -> bytes:
    names = signed_headers.split(";")
    lines = [
        request.method.upper().encode(),
        canonical_uri(request.scope.get("raw_path") or request.url.path.encode()),
        canonical_query(request.scope.get("query_string", b"")),
        b"".join(
            name.encode("latin-1") + b":" + _header_values(request, name) + b"\n" for name in names
        ),
        signed_headers.encode("latin-1"),
        payload_hash.encode(),
    ]
    return b"\n".join(lines)


def canonical_uri(raw_path: bytes) -> bytes:
    """The path without dot segments or empty segments, percent-encoded once more (the
    "double encoding" AWS specifies for every service but S3)."""
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
    return quote(path.encode("latin-1"), safe="/~").encode()


def canonical_query(raw_query: bytes) -> bytes:
    """Each name and value decoded and encoded again the way AWS specifies (everything but
    A-Z a-z 0-9 - _ . ~ percent-encoded), the pairs sorted by name, then value."""
    if not raw_query:
        return b""
    pairs = []
    for pair in raw_query.decode("latin-1").split("&"):
        name, _, value = pair.partition("=")
        pairs.append((_aws_quote(name), _aws_quote(value)))
    return "&".join(f"{name}={value}" for name, value in sorted(pairs)).encode()


def signature(secret: str, credential: Credential, amz_date: str, canonical: bytes) -> str:
    string_to_sign = "\n".join(
        [ALGORITHM, amz_date, credential.scope, hashlib.sha256(canonical).hexdigest()]
    )
    key = signing_key(secret, credential.date, credential.region, credential.service)
    return hmac.new(key, string_to_sign.encode(), hashlib.sha256).hexdigest()


def signing_key(secret: str, date: str, region: str, service: str) -> bytes:
    key = ("AWS4" + secret).encode()
    for part in (date, region, service, TERMINATOR):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return key


def _parse_authorization(header: str) -> tuple[Credential, str, str]:
    algorithm, _, rest = header.strip().partition(" ")
    if algorithm != ALGORITHM:
        raise IncompleteSignature(
            f"Unsupported AWS 'algorithm': '{algorithm}'; TideMQ verifies {ALGORITHM} "
            "(Signature Version 4) only."
        )
    parts: dict[str, str] = {}
    for element in rest.split(","):
        name, equals, value = element.strip().partition("=")
        if equals:
            parts[name] = value.strip()
    missing = [n for n in ("Credential", "SignedHeaders", "Signature") if not parts.get(n)]
    if missing:
        raise IncompleteSignature(
            " ".join(f"Authorization header requires '{n}' parameter." for n in missing)
        )
    elements = parts["Credential"].split("/")
    if len(elements) != 5:
        raise IncompleteSignature(
            "Credential should have exactly 5 slash-delimited elements, e.g. "
            f"keyid/date/region/service/term, got '{parts['Credential']}'"
        )
    return Credential(*elements), parts["SignedHeaders"], parts["Signature"]


def _amz_date(request: Request) -> str:
    amz_date = request.headers.get("x-amz-date")
    if amz_date is not None:
        if not _AMZ_DATE.match(amz_date) or _parse_amz_date(amz_date) is None:
            raise IncompleteSignature(
                f"X-Amz-Date must be in the ISO 8601 basic format yyyyMMdd'T'HHmmss'Z', "
                f"not '{amz_date}'."
            )
        return amz_date
    date = request.headers.get("date")
    if date is None:
        raise IncompleteSignature(
            "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header."
        )
    try:
        parsed = parsedate_to_datetime(date)
    except (TypeError, ValueError):
        raise IncompleteSignature(f"Date must be an HTTP date, not '{date}'.") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC).strftime(_AMZ_DATE_FORMAT)


def _check_scope(credential: Credential, amz_date: str, service: str) -> None:
    if credential.date != amz_date[:8]:
        raise SignatureDoesNotMatch(
            "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of "
            f"date from HTTP: '{credential.date}' != '{amz_date[:8]}', from '{amz_date}'."
        )
    if not credential.region:
        raise SignatureDoesNotMatch("Credential should be scoped to a valid region.")
    if credential.service != service:
        raise SignatureDoesNotMatch(f"Credential should be scoped to correct service: '{service}'.")
    if credential.terminator != TERMINATOR:
        raise SignatureDoesNotMatch(
            f"Credential should be scoped with a valid terminator: '{TERMINATOR}', "
            f"not '{credential.terminator}'."
        )


def _check_skew(amz_date: str, now_ms: int) -> None:
    signed_at = _parse_amz_date(amz_date)
    assert signed_at is not None  # checked by _amz_date
    now = datetime.fromtimestamp(now_ms / 1000, UTC)
    if now - signed_at > MAX_SKEW:
        raise RequestExpired(
            f"Signature expired: {amz_date} is now earlier than "
            f"{_format(now - MAX_SKEW)} ({_format(now)} - 15 min.)"
        )
    if signed_at - now > MAX_SKEW:
        raise RequestExpired(
            f"Signature not yet current: {amz_date} is still later than "
            f"{_format(now + MAX_SKEW)} ({_format(now)} + 15 min.)"
        )


def _parse_amz_date(amz_date: str) -> datetime | None:
    try:
        return datetime.strptime(amz_date, _AMZ_DATE_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        return None


def _format(moment: datetime) -> str:
    return moment.strftime(_AMZ_DATE_FORMAT)


def _presigned(raw_query: bytes) -> bool:
    names = {
        unquote(pair.partition("=")[0]).lower() for pair in raw_query.decode("latin-1").split("&")
    }
    return any(name in names for name in _PRESIGNED_PARAMS)


def _header_values(request: Request, name: str) -> bytes:
    """All of the header's values, each trimmed and its inner runs of spaces made one,
    joined by commas, as they came on the wire (bytes, so no decoding can alter them)."""
    wanted = name.encode("latin-1")
    values = [b" ".join(v.split()) for n, v in request.scope["headers"] if n.lower() == wanted]
    return b",".join(values)


def _aws_quote(text: str) -> str:
    return quote(unquote(text, encoding="latin-1").encode("latin-1"), safe="-_.~")
