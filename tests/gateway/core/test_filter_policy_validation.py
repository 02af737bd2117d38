"""Every policy SNS refuses is refused, with SNS's words; every limit holds to the unit.

The expected messages marked "recorded" are those real SNS answered (the Jackson
position SNS appends, "\\n at [Source: ...]", left out); the others are the texts of
AWS's event-ruler engine, which SNS's filtering runs on."""

from __future__ import annotations

import json

import pytest

from gateway.core.errors import CoreError, ErrorKind, FilterPolicyError
from gateway.core.filter_policies import (
    MAX_POLICY_BYTES,
    FilterPolicyScope,
    parse_filter_policy,
    parse_filter_policy_scope,
)

MIXED = (
    "Inside anything but list, either all values are number or string, mixed type is not supported"
)

REFUSED = [
    # recorded
    ({"key": [["value"]]}, "Match value must be String, number, true, false, or null"),
    ({"key": [{"wrong-operator": True}]}, "Unrecognized match type wrong-operator"),
    (
        {"key": [{"suffix": "value", "prefix": "value2"}]},
        "Only one key allowed in match expression",
    ),
    ({"key": [{"suffix": 100}]}, "suffix match pattern must be a string"),
    ({"key": [{"suffix": None}]}, "suffix match pattern must be a string"),
    ({"key": [{"suffix": []}]}, "suffix match pattern must be a string"),
    ({"key": [{"suffix": ["test", "test2"]}]}, "suffix match pattern must be a string"),
    ({"key": {"suffix": "value"}}, '"suffix" must be an object or an array'),
    ({"key": {"not-an-operator": "value"}}, '"not-an-operator" must be an object or an array'),
    ({"key": [{"numeric": []}]}, "Invalid member in numeric match: ]"),
    ({"key": [{"numeric": ["operator"]}]}, "Unrecognized numeric range operator: operator"),
    ({"key": [{"numeric": [1, "<="]}]}, "Invalid member in numeric match: 1"),
    ({"key": [{"numeric": ["=", "000"]}]}, "Value of equals must be numeric"),
    ({"key": [{"numeric": [">="]}]}, "Value of >= must be numeric"),
    ({"key": [{"numeric": ["<", 100, ">", 10]}]}, "Too many elements in numeric expression"),
    ({"key": [{"numeric": [">=", 1, ">", 2]}]}, "Bad numeric range operator: >"),
    ({"key": [{"numeric": [">", 3, "<", 1]}]}, "Bottom must be less than top"),
    ({"key": [{"numeric": [">", 20, "<="]}]}, "Value of <= must be numeric"),
    ({"key": [{"numeric": [">", 20, 30]}]}, "Bad value in numeric range: 30"),
    ({"key": [{"numeric": [">", 20, "test"]}]}, "Bad numeric range operator: test"),
    ({"key": [{"numeric": [">", "20", "<", "30"]}]}, "Value of > must be numeric"),
    ({"key": [{"numeric": [">", 20, "<", "30"]}]}, "Value of < must be numeric"),
    (
        {"key": [{"numeric": [">", 20, "<", 30, "<", 50]}]},
        "Too many terms in numeric range expression",
    ),
    ({"key": [{"exists": None}]}, "exists match pattern must be either true or false."),
    ({"key": [{"exists": "no"}]}, "exists match pattern must be either true or false."),
    (
        {"key": [{"anything-but": {"wrong-operator": None}}]},
        "Unsupported anything-but pattern: wrong-operator",
    ),
    ({"key": [{"anything-but": {"suffix": "test"}}]}, "Unsupported anything-but pattern: suffix"),
    ({"key": [{"anything-but": {"exists": False}}]}, "Unsupported anything-but pattern: exists"),
    ({"key": [{"anything-but": {"prefix": False}}]}, "prefix match pattern must be a string"),
    ({"key_a": "value_one"}, '"key_a" must be an object or an array'),
    # event-ruler's texts
    ({"a": [{"numeric": [">", 5, ">", 6]}]}, "Bad numeric range operator: >"),
    ({"a": [{"numeric": [">=", 5, "<=", 5]}]}, "Bottom must be less than top"),
    ({"a": [{"numeric": ["=", 5, 6]}]}, "Too many elements in numeric expression"),
    ({"a": [{"numeric": ["<=", 5, "<", 6]}]}, "Too many elements in numeric expression"),
    ({"a": [{"numeric": ["=", True]}]}, "Value of equals must be numeric"),
    ({"a": [{"numeric": [None]}]}, "Invalid member in numeric match: null"),
    ({"a": [{"numeric": [[1]]}]}, "Invalid member in numeric match: ["),
    ({"a": [{"numeric": [">", 1, {"<": 2}]}]}, "Bad value in numeric range: {"),
    ({"a": [{"numeric": "> 5"}]}, "Value of numeric must be an array."),
    ({"a": [{"numeric": [">", 1], "prefix": "x"}]}, "Too many elements in numeric expression"),
    ({"a": [{"foo": "bar"}]}, "Unrecognized match type foo"),
    ({"a": [{"wildcard": "*.png"}]}, "Unrecognized match type wildcard"),
    ({"a": [{}]}, "Match expression name not found"),
    ({"a": [{"prefix": 1}]}, "prefix match pattern must be a string"),
    ({"a": [{"prefix": "a", "suffix": "b"}]}, "Only one key allowed in match expression"),
    ({"a": [{"equals-ignore-case": 5}]}, "equals-ignore-case match pattern must be a string"),
    ({"a": [{"exists": 1}]}, "exists match pattern must be either true or false."),
    ({"a": [{"exists": True, "prefix": "x"}]}, "Only one key allowed in match expression"),
    (
        {"a": [{"anything-but": True}]},
        "Value of anything-but must be an array or single string/number value.",
    ),
    (
        {"a": [{"anything-but": None}]},
        "Value of anything-but must be an array or single string/number value.",
    ),
    (
        {"a": [{"anything-but": ["x", 1]}]},
        MIXED,
    ),
    (
        {"a": [{"anything-but": []}]},
        MIXED,
    ),
    (
        {"a": [{"anything-but": ["x", None]}]},
        "Inside anything but list, start|null|boolean is not supported.",
    ),
    (
        {"a": [{"anything-but": [True]}]},
        "Inside anything but list, start|null|boolean is not supported.",
    ),
    ({"a": [{"anything-but": {}}]}, "Anything-But expression name not found"),
    (
        {"a": [{"anything-but": {"equals-ignore-case": "x"}}]},
        "Unsupported anything-but pattern: equals-ignore-case",
    ),
    ({"a": [{"anything-but": {"prefix": ""}}]}, "Null prefix not allowed"),
    (
        {"a": [{"anything-but": {"prefix": "x", "suffix": "y"}}]},
        "Only one key allowed in match expression",
    ),
    (
        {"a": [{"anything-but": {"prefix": "x"}, "exists": True}]},
        "Only one key allowed in match expression",
    ),
    ({"a": [{"anything-but": "x", "exists": True}]}, "Too many elements in numeric expression"),
    ({"a": [{"cidr": 10}]}, "prefix match pattern must be a string"),
    ({"a": [{"cidr": "10.0.0.0"}]}, "Malformed CIDR, one '/' required"),
    ({"a": [{"cidr": "10.0.0.0/8/8"}]}, "Malformed CIDR, one '/' required"),
    ({"a": [{"cidr": "10.0.0.0/x"}]}, "Malformed CIDR, mask bits must be an integer"),
    ({"a": [{"cidr": "10.0.0.0/ 8"}]}, "Malformed CIDR, mask bits must be an integer"),
    ({"a": [{"cidr": "10.0.0.0/2147483648"}]}, "Malformed CIDR, mask bits must be an integer"),
    ({"a": [{"cidr": "10.0.0.0/-1"}]}, "Malformed CIDR, mask bits must not be negative"),
    ({"a": [{"cidr": "10.0.0.300/8"}]}, "Nonstandard IP address: 10.0.0.300"),
    ({"a": [{"cidr": "example.com/8"}]}, "Nonstandard IP address: example.com"),
    ({"a": [{"cidr": "10.0.0.0/32"}]}, "IPv4 mask bits must be < 32"),
    ({"a": [{"cidr": "::/128"}]}, "IPv6 mask bits must be < 128"),
    ({"a": [{"cidr": "10.0.0.0/8", "prefix": "x"}]}, "Only one key allowed in match expression"),
    ({"a": []}, "Empty arrays are not allowed"),
    ({"a": 5}, '"a" must be an object or an array'),
    ({"a": None}, '"a" must be an object or an array'),
    ({"a": "x"}, '"a" must be an object or an array'),
    # Not read as OR (one object; reserved names), so "$or" holds match expressions.
    ({"$or": [{"a": ["x"]}]}, "Unrecognized match type a"),
    ({"$or": [{"numeric": 123}, {"prefix": "abc"}]}, "Value of numeric must be an array."),
    ({"$or": []}, "Empty arrays are not allowed"),
]


def _refusal(policy: object, scope: str = "MessageAttributes") -> FilterPolicyError:
    text = policy if isinstance(policy, str) else json.dumps(policy)
    with pytest.raises(FilterPolicyError) as caught:
        parse_filter_policy(text, scope)
    return caught.value


@pytest.mark.parametrize(("policy", "reason"), REFUSED, ids=[r for _, r in REFUSED])
def test_refused_policies_get_sns_words(policy: dict[str, object], reason: str) -> None:
    error = _refusal(policy)
    assert error.message == f"Invalid parameter: FilterPolicy: {reason}"
    assert (
        error.subscribe_message == f"Invalid parameter: Attributes Reason: FilterPolicy: {reason}"
    )
    assert (error.code, error.kind, error.reason) == ("InvalidParameter", ErrorKind.INVALID, reason)
    assert isinstance(error, CoreError)


def test_attribute_scope_refuses_nested_policies_in_sns_words() -> None:
    nested = {"object": {"key": [{"prefix": "auto-"}]}}
    error = _refusal(nested)
    # recorded: no "FilterPolicy: " in this one
    assert error.message == (
        "Invalid parameter: Filter policy scope MessageAttributes does not support "
        "nested filter policy"
    )
    assert parse_filter_policy(json.dumps(nested), "MessageBody").root is not None
    assert _refusal({"$or": [{"a": ["x"]}, {"b": {"c": ["y"]}}]}).parameter is None
    # A syntax error anywhere comes first (recorded: {"key": {"suffix": "value"}} above).
    later = {"a": {"b": ["x"]}, "c": 5}
    assert _refusal(later).reason == '"c" must be an object or an array'


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{", "failed to parse JSON. "),
        ('{"a": ["x"],}', "failed to parse JSON. "),
        ("not json", "failed to parse JSON. "),
        ('{"a": [NaN]}', "failed to parse JSON. "),
        ("[]", "Filter is not an object"),
        ('"a"', "Filter is not an object"),
        ("5", "Filter is not an object"),
        ('{"a": {}}', "Empty objects are not allowed"),
        ('{"$or": [{}, {"a": ["x"]}]}', "Empty objects are not allowed"),
    ],
)
def test_text_that_is_no_policy(text: str, reason: str) -> None:
    error = _refusal(text, "MessageBody")
    assert error.reason.startswith(reason)
    assert error.message.startswith("Invalid parameter: FilterPolicy: ")


def test_a_bad_scope_is_refused_in_sns_words_recorded() -> None:
    for bad in ("RandomValue", "messagebody", "", "MessageAttributes "):
        with pytest.raises(FilterPolicyError) as caught:
            parse_filter_policy('{"a": ["x"]}', bad)
        assert caught.value.message == (
            f"Invalid parameter: FilterPolicyScope: Invalid value [{bad}]. "
            "Please use either MessageBody or MessageAttributes"
        )
        assert caught.value.parameter == "FilterPolicyScope"
    assert parse_filter_policy_scope("MessageBody") is FilterPolicyScope.MESSAGE_BODY


def test_at_most_five_keys() -> None:
    five = {f"key_{i}": ["v"] for i in range(5)}
    parse_filter_policy(json.dumps(five))
    error = _refusal({**five, "key_5": ["v"]})
    assert error.reason == "Filter policy can not have more than 5 keys"  # recorded
    # Nested: only keys with values count ("finding" does not: six keys).
    finding = {
        "state": ["SUCCESS"],
        "severity": [{"exists": True}],
        "message": [{"exists": True}],
        "finding": {
            "standard_control": [{"exists": True}],
            "region": [{"exists": True}],
            "account": [{"exists": True}],
        },
    }
    assert _refusal(finding, "MessageBody").reason == error.reason
    del finding["message"]
    parse_filter_policy(json.dumps(finding), "MessageBody")


def test_keys_count_along_each_way_through_the_ors() -> None:
    four = {f"key_{i}": ["v"] for i in range(4)}
    parse_filter_policy(json.dumps({**four, "$or": [{"x": ["1"]}, {"y": ["2"]}]}))
    two_more = {**four, "$or": [{"x": ["1"], "z": ["3"]}, {"y": ["2"]}]}
    assert _refusal(two_more).reason == "Filter policy can not have more than 5 keys"


def test_at_most_150_combinations() -> None:
    def values(count: int) -> list[str]:
        return [f"v{i}" for i in range(count)]

    parse_filter_policy(json.dumps({"a": values(3), "b": values(5), "c": values(10)}))
    parse_filter_policy(json.dumps({"a": values(150)}))
    for policy, scope in [
        ({"a": values(151)}, "MessageAttributes"),
        ({"a": values(3), "b": values(51)}, "MessageAttributes"),
        ({"$or": [{"a": values(100)}, {"b": values(51)}]}, "MessageAttributes"),
        # recorded: 3 x 4 x 2 x 3 x 1 x 3 = 216 (values times depth)
        (
            {
                "key_a": {"key_b": {"key_c": values(4)}},
                "key_d": {"key_e": values(3)},
                "key_f": values(3),
            },
            "MessageBody",
        ),
        ({"a": {"b": {"c": values(51)}}}, "MessageBody"),  # 3 x 51
    ]:
        assert _refusal(policy, scope).reason == "Filter policy is too complex"
    # The guide's examples: 72 (nested), and 7 (with $or).
    nested = {"key_a": {"key_b": {"key_c": values(4)}}, "key_d": {"key_e": values(3)}}
    parse_filter_policy(json.dumps(nested), "MessageBody")
    parse_filter_policy(json.dumps({"a": {"b": {"c": values(50)}}}), "MessageBody")
    parse_filter_policy(
        json.dumps(
            {
                "source": ["aws.cloudwatch"],
                "$or": [
                    {"metricName": ["CPUUtilization", "ReadLatency"]},
                    {"metricType": ["MetricType"], "$or": [{"id": [1, 2]}, {"space": [1, 2, 3]}]},
                ],
            }
        )
    )


def _nested(levels: int, inner: str, opening: str, closing: str) -> str:
    return opening * levels + inner + closing * levels


def test_deep_policies_are_too_complex_not_a_crash() -> None:
    for levels in (150, 400, 1000):
        objects = _nested(levels, '{"leaf": ["x"]}', '{"k": ', "}")
        assert _refusal(objects, "MessageBody").reason == "Filter policy is too complex"
    for levels in (150, 400):
        ors = _nested(levels, '{"leaf": ["x"]}', '{"$or": [{"other": ["y"]}, ', "]}")
        assert _refusal(ors, "MessageBody").reason == "Filter policy is too complex"
    # Past 1024 levels of JSON the text is not read at all (orjson's limit).
    too_deep = _nested(2000, "[]", "[", "]")
    assert _refusal(too_deep).reason.startswith("failed to parse JSON. ")
    # 149 levels around the leaf: depth 150, 150 combinations, the most there can be.
    policy = parse_filter_policy(_nested(149, '{"leaf": ["x"]}', '{"k": ', "}"), "MessageBody")
    assert policy.matches({}, _nested(149, '{"leaf": "x"}', '{"k": ', "}").encode())
    assert not policy.matches({}, _nested(148, '{"leaf": "x"}', '{"k": ', "}").encode())


def test_at_most_256_kib_of_policy() -> None:
    shell = '{"a": [""]}'
    at_limit = shell.replace('""', '"' + "x" * (MAX_POLICY_BYTES - len(shell)) + '"')
    assert len(at_limit.encode()) == MAX_POLICY_BYTES
    parse_filter_policy(at_limit)
    over = at_limit.replace("x", "é", 1)  # one more byte in UTF-8
    error = _refusal(over)
    assert (
        error.message
        == "Invalid parameter: FilterPolicy: Filter policy can not be larger than 256 KB"
    )
