"""SQS's text rules, against their definitions: XML 1.0's characters, ASCII integers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from control_plane.text_rules import (
    describe_char,
    forbidden_char,
    parse_int,
    without_forbidden_chars,
)


def allowed(char: str) -> bool:
    """XML 1.0's Char production, as SQS states it."""
    code = ord(char)
    return (
        code in (0x9, 0xA, 0xD)
        or 0x20 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    )


@given(st.text(st.characters(codec=None, exclude_categories=())))
def test_forbidden_characters_are_exactly_those_outside_xml(text: str) -> None:
    first_bad = next((c for c in text if not allowed(c)), None)
    assert forbidden_char(text) == first_bad
    cleaned = without_forbidden_chars(text)
    assert all(allowed(c) for c in cleaned)
    assert len(cleaned) == len(text)
    assert cleaned == text or first_bad is not None


def test_characters_are_named_as_sqs_names_them() -> None:
    assert describe_char("\x00") == "#x0"
    assert describe_char("\ufffe") == "#xFFFE"
    assert forbidden_char("tab\tnewline\nreturn\r") is None
    assert without_forbidden_chars("a\x00b\uffff") == "a\ufffdb\ufffd"


@given(st.integers(-(10**18) + 1, 10**18 - 1))
def test_ascii_integers_parse(number: int) -> None:
    assert parse_int(str(number)) == number
    assert parse_int(f"+{abs(number)}") == abs(number)


@given(st.text())
def test_only_ascii_digits_with_a_sign_are_integers(text: str) -> None:
    stripped = text[1:] if text[:1] in ("+", "-") else text
    is_ascii_integer = 0 < len(stripped) <= 18 and all(c in "0123456789" for c in stripped)
    assert (parse_int(text) is not None) == is_ascii_integer


# Superscript two, circled one, Arabic-Indic and fullwidth fives, spaces, Python's
# underscores and hex, nothing, a sign alone, more digits than any SQS integer.
NOT_INTEGERS = ["\u00b2", "\u2460", "\u0665", "\uff15", " 5", "5 ", "5\n", "1_0", "0x1", ""]


@pytest.mark.parametrize("text", [*NOT_INTEGERS, "+", "9" * 19])
def test_what_int_or_isdigit_would_take_is_not_an_integer(text: str) -> None:
    assert parse_int(text) is None
