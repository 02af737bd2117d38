"""Filter policies against plain Python: each operator agrees with the comparison it
stands for, `$or` is `or`, and no policy text nor message body makes the code fail
with anything but a FilterPolicyError."""

from __future__ import annotations

import contextlib
import ipaddress
import json
import operator
from collections.abc import Callable
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from gateway.core.errors import FilterPolicyError
from gateway.core.filter_policies import parse_filter_policy
from storage_nodes.node import MessageAttribute
from tests.gateway.core.filter_policy_helpers import accepts, accepts_body, number

# SNS's documented numbers: -10^9 to 10^9, five decimal places.
sns_numbers = st.decimals(
    min_value=Decimal("-1e9"), max_value=Decimal("1e9"), places=5, allow_nan=False
)
LOWER = {">": operator.gt, ">=": operator.ge}
UPPER = {"<": operator.lt, "<=": operator.le}
COMPARISONS: dict[str, Callable[[Decimal, Decimal], bool]] = {**LOWER, **UPPER}
texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)


def _json_number(value: Decimal) -> str:
    return format(value, "f")


@given(
    value=sns_numbers,
    bound=sns_numbers,
    comparison=st.sampled_from(sorted(COMPARISONS)),
    as_exponent=st.booleans(),
)
def test_one_bound_is_the_comparison(
    value: Decimal, bound: Decimal, comparison: str, as_exponent: bool
) -> None:
    policy = f'{{"n": [{{"numeric": ["{comparison}", {_json_number(bound)}]}}]}}'
    written = f"{value:e}" if as_exponent and value else _json_number(value)
    expected = COMPARISONS[comparison](value, bound)
    compiled = parse_filter_policy(policy)
    assert compiled.matches({"n": number(written)}, b"") is expected
    body_policy = parse_filter_policy(policy, "MessageBody")
    assert body_policy.matches({}, f'{{"n": {written}}}'.encode()) is expected


@given(
    value=sns_numbers,
    bounds=st.lists(sns_numbers, min_size=2, max_size=2, unique=True).map(sorted),
    lower=st.sampled_from(sorted(LOWER)),
    upper=st.sampled_from(sorted(UPPER)),
)
def test_a_range_is_both_comparisons(
    value: Decimal, bounds: list[Decimal], lower: str, upper: str
) -> None:
    bottom, top = bounds
    policy = {"n": [{"numeric": [lower, float(bottom), upper, float(top)]}]}
    expected = LOWER[lower](value, bottom) and UPPER[upper](value, top)
    # float() of a number of at most 15 significant digits reads back as that number.
    assert accepts(policy, {"n": number(_json_number(value))}) is expected


@given(value=sns_numbers, other=sns_numbers)
def test_numeric_equals_is_equality_whatever_the_spelling(value: Decimal, other: Decimal) -> None:
    policy = {"n": [{"numeric": ["=", float(value)]}]}
    assert accepts(policy, {"n": number(f"{value:e}")})
    assert accepts(policy, {"n": number(_json_number(other))}) is (value == other)


@given(value=texts, pattern=texts)
def test_string_operators_are_the_string_methods(value: str, pattern: str) -> None:
    for name, expected in (
        ("prefix", value.startswith(pattern)),
        ("suffix", value.endswith(pattern)),
        ("equals-ignore-case", value.lower() == pattern.lower()),
    ):
        policy = {"s": [{name: pattern}]}
        assert accepts(policy, {"s": MessageAttribute("String", value)}) is expected
        assert accepts_body(policy, {"s": value}) is expected
    assert accepts({"s": [pattern]}, {"s": MessageAttribute("String", value)}) is (value == pattern)


@given(value=texts, excluded=st.lists(texts, min_size=1, max_size=4))
def test_anything_but_is_not_in(value: str, excluded: list[str]) -> None:
    policy = {"s": [{"anything-but": excluded}]}
    assert accepts_body(policy, {"s": value}) is (value not in excluded)
    if excluded[0]:
        prefix = {"s": [{"anything-but": {"prefix": excluded[0]}}]}
        assert accepts_body(prefix, {"s": value}) is (not value.startswith(excluded[0]))


@given(
    address=st.ip_addresses(v=4),
    network=st.ip_addresses(v=4),
    mask_bits=st.integers(min_value=0, max_value=31),
)
def test_cidr_is_network_membership(
    address: ipaddress.IPv4Address, network: ipaddress.IPv4Address, mask_bits: int
) -> None:
    cidr = ipaddress.ip_network((network, mask_bits), strict=False)
    policy = {"ip": [{"cidr": f"{network}/{mask_bits}"}]}
    assert accepts(policy, {"ip": str(address)}) is (address in cidr)


attribute_values = st.sampled_from(["a", "b", "c"])
simple_policies = st.dictionaries(
    st.sampled_from(["x", "y", "z"]),
    st.lists(attribute_values, min_size=1, max_size=2),
    min_size=1,
    max_size=2,
)


@given(
    first=simple_policies,
    second=simple_policies,
    message=st.dictionaries(st.sampled_from(["x", "y", "z"]), attribute_values),
)
def test_or_is_or(
    first: dict[str, list[str]], second: dict[str, list[str]], message: dict[str, str]
) -> None:
    either = accepts({"$or": [first, second]}, message)
    assert either is (accepts(first, message) or accepts(second, message))
    assert accepts_body({"$or": [first, second]}, message) is either


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=12,
)


@given(document=json_values, scope=st.sampled_from(["MessageAttributes", "MessageBody"]))
def test_any_json_is_a_policy_or_a_filter_policy_error(document: object, scope: str) -> None:
    with contextlib.suppress(FilterPolicyError):
        parse_filter_policy(json.dumps(document), scope)


SAMPLE_POLICIES = [
    parse_filter_policy(
        json.dumps(
            {
                "a": {"b": [{"prefix": "x"}, 1, None, {"exists": False}]},
                "c.d": [{"numeric": [">", 0, "<", 10]}, {"anything-but": ["q"]}],
                "$or": [{"e": [{"cidr": "10.0.0.0/8"}]}, {"f": [True, {"exists": True}]}],
            }
        ),
        "MessageBody",
    ),
    parse_filter_policy('{"a": [{"numeric": [">=", 0]}], "b": [{"suffix": "z"}]}'),
]


@given(body=json_values, raw=st.binary(max_size=40))
def test_no_body_makes_matching_fail(body: object, raw: bytes) -> None:
    for policy in SAMPLE_POLICIES:
        for candidate in (json.dumps(body).encode(), raw):
            policy.matches({}, candidate)
            policy.matches(
                {"a": MessageAttribute("String.Array", candidate.decode("latin-1"))}, b""
            )
            policy.matches({"a": MessageAttribute("Number", candidate.decode("latin-1"))}, b"")
