"""The Query form decoder: what `urllib.parse` decodes, decoded the same; what it would
repair (a bad escape, bytes not UTF-8), refused; fields counted before decoding."""

from __future__ import annotations

import re
from urllib.parse import quote, unquote_to_bytes

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway import query_form
from gateway.core.errors import CoreError, ErrorKind

# Pieces of form bodies, valid and not: escapes of ASCII and of UTF-8 bytes, separators,
# `+`, a `%` that starts no escape, bytes sent raw.
PIECES = ["%41", "%e9", "%C3%A9", "%3D", "%26", "%25", "=", "+", "&", "a", "_", "%", "%4", "%G1"]
_BAD_ESCAPE = re.compile(rb"%(?![0-9A-Fa-f]{2})")


def reference(data: bytes) -> list[tuple[str, str]] | None:
    """urllib's percent-decoding of each field, strict about UTF-8 and about escapes
    (None where either fails)."""
    if _BAD_ESCAPE.search(data):
        return None
    pairs = []
    for field in data.split(b"&"):
        if field:
            name, _, value = field.partition(b"=")
            try:
                name_text, value_text = (
                    unquote_to_bytes(part.replace(b"+", b" ")).decode() for part in (name, value)
                )
            except UnicodeDecodeError:
                return None
            pairs.append((name_text, value_text))
    return pairs


@given(st.lists(st.sampled_from([p.encode() for p in PIECES] + [b"\xff", "\u00e9".encode()])))
def test_the_decoder_agrees_with_urllib_or_refuses(pieces: list[bytes]) -> None:
    data = b"".join(pieces)
    expected = reference(data)
    if expected is None:
        with pytest.raises(CoreError) as caught:
            query_form.decode(data, max_fields=1000, max_parameters=1000)
        assert (caught.value.code, caught.value.kind) == ("MalformedQueryString", ErrorKind.INVALID)
    else:
        assert query_form.decode(data, max_fields=1000, max_parameters=1000) == expected


@given(st.dictionaries(st.text(), st.text(), max_size=5))
def test_what_an_sdk_encodes_decodes_to_what_it_encoded(params: dict[str, str]) -> None:
    encodable = {k: v for k, v in params.items() if k}
    body = "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in encodable.items())
    assert dict(query_form.decode(body.encode(), max_fields=1000, max_parameters=1000)) == encodable


def test_fields_are_counted_before_they_are_decoded() -> None:
    with pytest.raises(CoreError) as caught:
        query_form.decode(b"a=%FF" + b"&" * 1000, max_fields=1000, max_parameters=1000)
    assert caught.value.code == "InvalidQueryParameter"
    assert (
        len(query_form.decode(b"a=1" + b"&b=2" * 999, max_fields=1000, max_parameters=1000)) == 1000
    )


def test_a_request_s_form_is_its_url_s_fields_then_its_body_s() -> None:
    form = query_form.decode_request(b"Action=A&x=url&y=1", b"x=body&z=%C3%A9", 10)
    assert form == {"Action": "A", "x": "body", "y": "1", "z": "\u00e9"}
    assert query_form.decode_request(b"", b"", 10) == {}


def test_the_url_and_the_body_share_one_limit_named_in_the_error() -> None:
    assert len(query_form.decode_request(b"a=1&b=2", b"c=3", 3)) == 3
    for url, body in [(b"a=1&b=2", b"c=3&d=4"), (b"a=1&b=2&c=3&d=4", b""), (b"", b"a&b&c&d")]:
        with pytest.raises(CoreError) as caught:
            query_form.decode_request(url, body, 3)
        assert caught.value.code == "InvalidQueryParameter"
        assert caught.value.message == (
            "The request has more than 3 parameters, more than any action takes."
        )
