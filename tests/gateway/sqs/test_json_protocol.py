"""The JSON 1.0 request body's token count, taken on the raw bytes before parsing: exact
for every JSON document, however its strings are escaped."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from gateway.sqs.json_protocol import count_tokens

# Text rich in what the count must not take for structure: quotes, backslashes, commas
# and brackets inside strings.
TRICKY = st.text(alphabet=st.sampled_from('"\\,[]{}:\u00e9\x00 a'), max_size=8) | st.text(
    max_size=4
)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TRICKY,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TRICKY, inner, max_size=4),
    max_leaves=20,
)


def tokens(value: Any) -> int:
    """Strings, commas, and opened objects and arrays, counted on the value."""
    if isinstance(value, str):
        return 1
    if isinstance(value, list):
        return 1 + max(len(value) - 1, 0) + sum(tokens(v) for v in value)
    if isinstance(value, dict):
        return 1 + max(len(value) - 1, 0) + sum(1 + tokens(v) for v in value.values())
    return 0


@given(JSON_VALUES, st.booleans(), st.booleans())
def test_the_count_is_exact_for_any_json(value: Any, ascii_only: bool, spaced: bool) -> None:
    separators = (", ", ": ") if spaced else (",", ":")
    body = json.dumps(value, ensure_ascii=ascii_only, separators=separators).encode()
    assert count_tokens(body) == tokens(value)
