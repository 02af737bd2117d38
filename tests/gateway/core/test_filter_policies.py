"""Filter policies match as SNS does: every operator both ways, and the examples of SNS's
developer guide ("Amazon SNS message filtering") and of recordings against real SNS."""

from __future__ import annotations

import copy
import json

import pytest

from gateway.core.filter_policies import FilterPolicyScope, parse_filter_policy
from storage_nodes.node import MessageAttribute
from tests.gateway.core.filter_policy_helpers import accepts, accepts_body, number

# SNS's example message ("Example filter policies"), as attributes and as a body.
EXAMPLE_ATTRIBUTES = {
    "customer_interests": ["soccer", "rugby", "hockey"],
    "store": "example_corp",
    "event": "order_placed",
    "price_usd": number("210.75"),
}
EXAMPLE_BODY = {
    "customer_interests": ["soccer", "rugby", "hockey"],
    "store": "example_corp",
    "event": "order_placed",
    "price_usd": 210.75,
}
ACCEPTING_POLICY = {
    "store": ["example_corp"],
    "event": [{"anything-but": "order_cancelled"}],
    "customer_interests": ["rugby", "football", "baseball"],
    "price_usd": [{"numeric": [">=", 100]}],
}
REJECTING_POLICY = {
    "store": ["example_corp"],
    "event": ["order_cancelled"],
    "encrypted": [False],
    "customer_interests": ["basketball", "baseball"],
}


def test_the_guides_example_policies_accept_and_reject_its_message_in_both_scopes() -> None:
    assert accepts(ACCEPTING_POLICY, EXAMPLE_ATTRIBUTES)
    assert accepts_body(ACCEPTING_POLICY, EXAMPLE_BODY)
    assert not accepts(REJECTING_POLICY, EXAMPLE_ATTRIBUTES)
    assert not accepts_body(REJECTING_POLICY, EXAMPLE_BODY)
    # One mismatch is enough to reject: the accepting policy with a price too high.
    too_dear = {**ACCEPTING_POLICY, "price_usd": [{"numeric": [">=", 300]}]}
    assert not accepts(too_dear, EXAMPLE_ATTRIBUTES)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("rugby", True),
        ("tennis", True),
        (["rugby", "tennis"], True),
        (["baseball", "tennis"], True),
        ("baseball", False),
        (["baseball"], False),
        ("Rugby", False),  # case-sensitive
        ("rugby ", False),
    ],
)
def test_exact_strings(value: str | list[object], expected: bool) -> None:
    policy = {"customer_interests": ["rugby", "tennis"]}
    assert accepts(policy, {"customer_interests": value}) is expected
    assert accepts_body(policy, {"customer_interests": value}) is expected


def test_strings_numbers_booleans_and_null_never_equal_one_another() -> None:
    assert not accepts({"a": ["100"]}, {"a": number("100")})
    assert not accepts({"a": [100]}, {"a": "100"})
    assert accepts({"a": [100]}, {"a": number("100")})
    assert accepts({"a": [100]}, {"a": number("1e2")})
    assert accepts({"a": [100]}, {"a": number("100.000")})
    assert not accepts_body({"a": [1]}, {"a": True})
    assert not accepts_body({"a": [True]}, {"a": 1})
    assert not accepts_body({"a": [0]}, {"a": False})
    assert not accepts_body({"a": [None]}, {"a": 0})
    assert not accepts_body({"a": ["true"]}, {"a": True})
    assert accepts_body({"a": [False]}, {"a": False})
    assert accepts_body({"a": [None]}, {"a": None})
    assert not accepts_body({"a": [None]}, {})  # null is a value, not an absence
    # Attributes hold booleans only inside a String.Array.
    assert not accepts({"encrypted": [False]}, {"encrypted": "false"})
    assert accepts({"encrypted": [False]}, {"encrypted": [False]})


def test_prefix() -> None:
    policy = {"customer_interests": [{"prefix": "bas"}]}
    assert accepts(policy, {"customer_interests": "baseball"})
    assert accepts(policy, {"customer_interests": "basketball"})
    assert accepts(policy, {"customer_interests": ["rugby", "basketball"]})
    assert not accepts(policy, {"customer_interests": "rugby"})
    assert not accepts(policy, {"customer_interests": "Baseball"})
    assert accepts_body(policy, {"customer_interests": "baseball"})
    assert not accepts_body({"code": [{"prefix": "12"}]}, {"code": 123})  # strings only


def test_suffix() -> None:
    policy = {"customer_interests": [{"suffix": "ball"}]}
    assert accepts(policy, {"customer_interests": "baseball"})
    assert accepts_body(policy, {"customer_interests": ["rugby", "football"]})
    assert not accepts(policy, {"customer_interests": "rugby"})
    assert not accepts(policy, {"customer_interests": "balls"})


def test_equals_ignore_case() -> None:
    policy = {"customer_interests": [{"equals-ignore-case": "tennis"}]}
    for spelling in ("tennis", "TENNIS", "Tennis", "tEnNiS"):
        assert accepts(policy, {"customer_interests": spelling})
        assert accepts_body(policy, {"customer_interests": spelling})
    assert not accepts(policy, {"customer_interests": "table tennis"})
    assert not accepts(policy, {"customer_interests": "baseball"})


def test_anything_but_strings() -> None:
    policy = {"customer_interests": [{"anything-but": ["rugby", "tennis"]}]}
    assert accepts(policy, {"customer_interests": "baseball"})
    assert accepts(policy, {"customer_interests": "football"})
    # The guide's example: an array with one element that is not excluded matches.
    assert accepts(policy, {"customer_interests": ["rugby", "baseball"]})
    assert accepts_body(policy, {"customer_interests": ["rugby", "baseball"]})
    assert not accepts(policy, {"customer_interests": "rugby"})
    assert not accepts(policy, {"customer_interests": ["rugby", "tennis"]})
    # An absent key is not "anything but": only {"exists": false} takes it.
    assert not accepts(policy, {})
    assert not accepts_body(policy, {"other": 1})
    with_absent = {"customer_interests": [{"anything-but": ["rugby"]}, {"exists": False}]}
    assert accepts(with_absent, {})
    assert not accepts(with_absent, {"customer_interests": "rugby"})


def test_anything_but_one_value_and_numbers() -> None:
    assert accepts({"event": [{"anything-but": "order_cancelled"}]}, {"event": "order_placed"})
    assert not accepts(
        {"event": [{"anything-but": "order_cancelled"}]}, {"event": "order_cancelled"}
    )
    policy = {"price": [{"anything-but": [100, 200.5]}]}
    assert accepts(policy, {"price": number("150")})
    assert not accepts(policy, {"price": number("1e2")})
    assert not accepts(policy, {"price": number("200.50")})
    assert not accepts_body(policy, {"price": 100.0})
    assert not accepts({"price": [{"anything-but": 100}]}, {"price": number("100")})
    # A value of another type is not one of the excluded ones.
    assert accepts(policy, {"price": "100"})


def test_anything_but_prefix() -> None:
    policy = {"event": [{"anything-but": {"prefix": "order-"}}]}
    assert accepts(policy, {"event": "data-entry"})
    assert accepts(policy, {"event": "order_number"})
    assert not accepts(policy, {"event": "order-cancelled"})
    assert not accepts_body(policy, {"event": "order-cancelled"})
    assert not accepts(policy, {})


def test_numeric_exact_matching() -> None:
    policy = {"price_usd": [{"numeric": ["=", 301.5]}]}
    assert accepts(policy, {"price_usd": number("301.5")})
    assert accepts(policy, {"price_usd": number("3.015e2")})
    assert accepts_body(policy, {"price_usd": 301.5})
    assert accepts_body(policy, b'{"price_usd": 3.015e2}')
    assert not accepts(policy, {"price_usd": number("301.51")})
    assert not accepts(policy, {"price_usd": "301.5"})  # a String attribute
    assert not accepts_body(policy, {"price_usd": "301.5"})


@pytest.mark.parametrize(
    ("value", "expected"),
    [("0", False), ("0.00001", True), ("100", True), ("150", True), ("150.00001", False)],
)
def test_numeric_range(value: str, expected: bool) -> None:
    policy = {"price_usd": [{"numeric": [">", 0, "<=", 150]}]}
    assert accepts(policy, {"price_usd": number(value)}) is expected
    assert accepts_body(policy, f'{{"price_usd": {value}}}'.encode()) is expected


def test_numeric_single_bounds() -> None:
    assert accepts({"n": [{"numeric": ["<", 10]}]}, {"n": number("9.99999")})
    assert not accepts({"n": [{"numeric": ["<", 10]}]}, {"n": number("10")})
    assert accepts({"n": [{"numeric": ["<=", 10]}]}, {"n": number("10")})
    assert accepts({"n": [{"numeric": [">=", -5]}]}, {"n": number("-5")})
    assert not accepts({"n": [{"numeric": [">", -5]}]}, {"n": number("-5")})
    assert accepts({"n": [{"numeric": [">=", 0, "<", 1]}]}, {"n": number("0")})
    assert not accepts({"n": [{"numeric": [">=", 0, "<", 1]}]}, {"n": number("1")})
    assert not accepts({"n": [{"numeric": [">", 0]}]}, {"n": "5"})  # a String attribute
    assert accepts({"n": [{"numeric": [">", 100]}]}, {"n": [1, 200]})  # String.Array


def test_numbers_compare_to_five_decimal_places() -> None:
    assert accepts({"n": [{"numeric": ["=", 0]}]}, {"n": number("0.000001")})
    assert not accepts({"n": [{"numeric": ["=", 0]}]}, {"n": number("0.00001")})
    assert accepts({"n": [1.000001]}, {"n": number("1")})
    assert accepts({"n": [{"numeric": [">", 999999999.99998]}]}, {"n": number("999999999.99999")})
    # Past SNS's documented range (+-10^9) numbers still compare exactly.
    assert accepts({"n": [{"numeric": [">", 1e12]}]}, {"n": number("1e13")})
    assert accepts({"n": [{"numeric": ["<", -1e12]}]}, {"n": number("-1e126")})


def test_exists() -> None:
    present = {"store": [{"exists": True}]}
    absent = {"store": [{"exists": False}]}
    with_store = {"store": "fans", "customer_interests": ["baseball", "basketball"]}
    without_store = {"customer_interests": ["baseball", "basketball"]}
    assert accepts(present, with_store)
    assert not accepts(present, without_store)
    assert not accepts(absent, with_store)
    assert accepts(absent, without_store)
    assert accepts_body(present, with_store)
    assert accepts_body(absent, without_store)
    assert accepts_body(present, {"store": None})  # null is there
    # A Number attribute exists as much as a String one (recorded against SNS).
    assert accepts(present, {"store": number("99"), "def": number("99")})
    # An empty array and an object hold no value for the key itself.
    assert accepts_body(absent, {"store": []})
    assert accepts_body(absent, {"store": {"name": "fans"}})
    assert not accepts(present, {"store": []})


def test_binary_attributes_are_left_out_of_filtering() -> None:
    assert not accepts({"photo": [{"exists": True}]}, {"photo": b"\x89PNG"})
    assert accepts({"photo": [{"exists": False}]}, {"photo": b"\x89PNG"})


def test_custom_attribute_types_filter_as_their_base_type() -> None:
    compiled = parse_filter_policy('{"a": ["x"], "n": [{"numeric": [">", 1]}]}')
    attributes = {
        "a": MessageAttribute("String.name", string_value="x"),
        "n": MessageAttribute("Number.int", string_value="2"),
    }
    assert compiled.matches(attributes, b"")


def test_a_string_array_that_is_not_a_json_array_offers_nothing() -> None:
    compiled = parse_filter_policy('{"a": [{"exists": false}]}')
    for text in ("not json", '"rugby"', '{"a": 1}'):
        assert compiled.matches({"a": MessageAttribute("String.Array", text)}, b"")


def test_cidr() -> None:
    policy = {"source_ip": [{"cidr": "10.0.0.0/24"}]}
    assert accepts(policy, {"source_ip": "10.0.0.0"})
    assert accepts(policy, {"source_ip": "10.0.0.255"})
    assert accepts_body(policy, {"source_ip": "10.0.0.7"})
    assert not accepts(policy, {"source_ip": "10.1.1.0"})
    assert not accepts(policy, {"source_ip": "10.0.1.0"})
    assert not accepts(policy, {"source_ip": "not an address"})
    assert not accepts(policy, {"source_ip": "::ffff:10.0.0.1"})
    six = {"source_ip": [{"cidr": "2001:db8::/32"}]}
    assert accepts(six, {"source_ip": "2001:db8::1"})
    assert accepts(six, {"source_ip": "2001:0db8:ffff::"})
    assert not accepts(six, {"source_ip": "2001:db9::1"})
    assert not accepts(six, {"source_ip": "10.0.0.1"})
    # The whole network, whatever host bits the address is written with.
    assert accepts({"ip": [{"cidr": "10.0.0.5/24"}]}, {"ip": "10.0.0.1"})


def test_an_exact_ip_address_matches_its_other_spellings() -> None:
    assert accepts({"ip": ["::1"]}, {"ip": "0:0:0:0:0:0:0:1"})
    assert accepts({"ip": ["2001:db8::1"]}, {"ip": "2001:DB8:0::1"})
    assert not accepts({"ip": ["::1"]}, {"ip": "::2"})


def test_and_across_keys_or_within_a_key() -> None:
    policy = {"customer_interests": ["rugby"], "price_usd": [{"numeric": [">", 100]}]}
    assert accepts(policy, {"customer_interests": "rugby", "price_usd": 101})
    assert not accepts(policy, {"customer_interests": "rugby", "price_usd": 100})
    assert not accepts(policy, {"customer_interests": "tennis", "price_usd": 101})
    assert not accepts(policy, {"customer_interests": "rugby"})
    either = {"customer_interests": ["rugby", "football", "baseball"]}
    assert all(accepts(either, {"customer_interests": v}) for v in ("rugby", "baseball"))


def test_or_operator_the_guides_standard_example() -> None:
    policy = {
        "source": ["aws.cloudwatch"],
        "$or": [{"metricName": ["CPUUtilization"]}, {"namespace": ["AWS/EC2"]}],
    }
    cloudwatch = {"source": "aws.cloudwatch"}
    assert accepts(policy, {**cloudwatch, "metricName": "CPUUtilization"})
    assert accepts(policy, {**cloudwatch, "namespace": "AWS/EC2"})
    assert accepts_body(policy, {**cloudwatch, "namespace": "AWS/EC2"})
    assert not accepts(policy, cloudwatch)
    assert not accepts(policy, {"metricName": "CPUUtilization", "namespace": "AWS/EC2"})


def test_or_operator_nested_in_a_branch() -> None:
    # The guide's example of a policy with 7 combinations.
    policy = {
        "source": ["aws.cloudwatch"],
        "$or": [
            {"metricName": ["CPUUtilization", "ReadLatency"]},
            {
                "metricType": ["MetricType"],
                "$or": [{"metricId": [1234, 4321]}, {"spaceId": [1000, 2000, 3000]}],
            },
        ],
    }
    base = {"source": "aws.cloudwatch"}
    assert accepts(policy, {**base, "metricName": "ReadLatency"})
    assert accepts(policy, {**base, "metricType": "MetricType", "metricId": 4321})
    assert accepts(policy, {**base, "metricType": "MetricType", "spaceId": 2000})
    assert not accepts(policy, {**base, "metricType": "MetricType"})
    assert not accepts(policy, {**base, "metricId": 4321})


def test_or_in_a_nested_body_object_recorded_against_sns() -> None:
    policy = {
        "$or": [
            {"metricName": ["CPUUtilization", "ReadLatency"]},
            {"namespace": ["AWS/EC2", "AWS/ES"]},
        ],
        "detail": {
            "scope": ["Service"],
            "$or": [{"source": ["aws.cloudwatch"]}, {"type": ["CloudWatch Alarm State Change"]}],
        },
    }
    alarm = "CloudWatch Alarm State Change"
    refused = [
        {"metricName": "CPUUtilization", "detail": {"scope": "aws.cloudwatch", "type": alarm}},
        {"metricName": "CPUUtilization", "detail": {"scope": "Service", "type": "CPUUtilization"}},
        {"metricName": "CPUUtilization", "detail": {"type": alarm}},
        {"metricName": "CPUUtilization", "detail": {"scope": "Service"}},
        {"metricName": "CPUUtilization", "scope": "Service"},
    ]
    taken = [
        {
            "metricName": "CPUUtilization",
            "detail": {"scope": "Service", "source": "aws.cloudwatch"},
        },
        {"metricName": "ReadLatency", "detail": {"scope": "Service", "source": "aws.cloudwatch"}},
        {"namespace": "AWS/EC2", "detail": {"scope": "Service", "source": "aws.cloudwatch"}},
        {"namespace": "AWS/ES", "detail": {"scope": "Service", "source": "aws.cloudwatch"}},
        {"metricName": "CPUUtilization", "detail": {"scope": "Service", "type": alarm}},
        {"metricName": "AWS/EC2", "detail": {"scope": "Service", "type": alarm}},
        {"namespace": "CPUUtilization", "detail": {"scope": "Service", "type": alarm}},
    ]
    assert not any(accepts_body(policy, body) for body in refused)
    assert all(accepts_body(policy, body) for body in taken[:5])
    # metricName "AWS/EC2" / namespace "CPUUtilization" are neither branch's values.
    assert not any(accepts_body(policy, body) for body in taken[5:])


def test_or_that_sns_does_not_read_as_or_is_an_ordinary_key() -> None:
    # Fewer than two objects, or not objects: "$or" names an attribute.
    assert accepts({"$or": ["x", "y"]}, {"$or": "y"})
    assert not accepts({"$or": ["x", "y"]}, {"a": "x"})


S3_INSURANCE_POLICY = {
    "Records": {
        "s3": {"object": {"key": [{"prefix": "auto-"}]}},
        "eventName": [{"prefix": "ObjectCreated:"}],
    }
}


def _s3_event(event_name: str, key: str) -> dict[str, object]:
    return {
        "Records": [
            {
                "eventSource": "aws:s3",
                "eventTime": "2022-11-21T03:41:29.743Z",
                "eventName": event_name,
                "s3": {
                    "bucket": {"name": "insurance-bucket-demo"},
                    "object": {"key": key, "size": 17},
                },
            }
        ]
    }


def test_the_payload_filtering_insurance_example() -> None:
    """SNS's payload-based filtering example (S3 events of an insurance bucket), as
    recorded against SNS: only creations of auto- keys get through."""
    assert accepts_body(
        S3_INSURANCE_POLICY, _s3_event("ObjectCreated:Put", "auto-insurance-2314.xml")
    )
    assert not accepts_body(
        S3_INSURANCE_POLICY, _s3_event("ObjectRemoved:Delete", "auto-insurance-2314.xml")
    )
    assert not accepts_body(
        S3_INSURANCE_POLICY, _s3_event("ObjectCreated:Put", "home-insurance-2314.xml")
    )
    # Several records, one of them a match; "object" as an array of arrays still counts.
    several = copy.deepcopy(_s3_event("ObjectCreated:Put", "auto-insurance-2314.xml"))
    records = several["Records"]
    assert isinstance(records, list)
    records[0]["s3"]["object"] = [[records[0]["s3"]["object"]]]
    records.append(_s3_event("ObjectRemoved:Delete", "home-insurance-2314.xml")["Records"][0])  # type: ignore[index]
    assert accepts_body(S3_INSURANCE_POLICY, several)


def test_a_nested_policy_asks_for_one_array_element_to_hold_it_all() -> None:
    policy = {"a": {"b": [1], "c": [2]}}
    assert accepts_body(policy, {"a": [{"b": 1, "c": 2}, {"b": 3}]})
    assert not accepts_body(policy, {"a": [{"b": 1}, {"c": 2}]})
    assert accepts_body({"a": {"b": [{"exists": False}]}}, {"a": [{"b": 1}, {"c": 2}]})
    assert accepts_body({"a": {"b": [{"exists": False}]}}, {"a": []})


def test_arrays_in_the_body_match_when_an_element_does_recorded_against_sns() -> None:
    to_queue1 = {"headers": {"route-to": ["queue1"]}}
    assert accepts_body(to_queue1, {"headers": {"route-to": ["queue1"]}})
    assert accepts_body(to_queue1, {"headers": {"route-to": ["queue1", "queue2"]}})
    assert not accepts_body(to_queue1, {"headers": {"route-to": ["queue2"]}})
    assert not accepts_body(to_queue1, {"headers": {"route-to": ["queue3"]}})
    assert accepts_body({"n": [3]}, {"n": [[1, [2, [3]]]]})


def test_a_nested_body_policy_recorded_against_sns() -> None:
    policy = {
        "object": {
            "key": [{"prefix": "auto-"}, "hardcodedvalue"],
            "nested_key": [{"exists": False}],
        },
        "test": [{"exists": False}],
    }
    assert accepts_body(policy, {"object": {"key": "auto-test"}})
    assert accepts_body(policy, {"object": {"key": "hardcodedvalue"}})
    for body in (
        {"object": {"key": "test-auto"}},
        {"object": {"key": "auto-test"}, "test": "just-exists"},
        {"object": {"key": "auto-test", "nested_key": "just-exists"}},
        {"object": {"test": "auto-test"}},
        {"test": "auto-test"},
    ):
        assert not accepts_body(policy, body)


def test_dotted_keys_are_nested_keys_in_the_body_recorded_against_sns() -> None:
    policy = {"object.nested": ["string.value"]}
    assert accepts_body(policy, {"object": {"nested": "string.value"}})
    assert accepts_body(policy, {"object.nested": "string.value"})
    assert not accepts_body(policy, {"object": {"nested": "test-auto"}})
    deep = {"object.nested.test": ["string.value"]}
    for body in (
        {"object": {"nested": {"test": "string.value"}}},
        {"object.nested.test": "string.value"},
        {"object.nested": {"test": "string.value"}},
        {"object": {"nested.test": "string.value"}},
    ):
        assert accepts_body(deep, body)
        assert accepts_body({"object": {"nested": {"test": ["string.value"]}}}, body)
    assert not accepts_body(deep, {"object": {"nested": {"test": "string.notvalue"}}})
    # The two spellings in one body are one key with both values.
    assert accepts_body({"a": {"b": [2]}}, {"a.b": 1, "a": {"b": 2}})
    assert accepts_body({"a": {"b": [1], "c": [2]}}, {"a.b": 1, "a": {"c": 2}})


def test_an_attribute_name_with_dots_is_only_a_name() -> None:
    assert accepts({"a.b": ["x"]}, {"a.b": "x"})
    assert not accepts({"a.b": ["x"]}, {"a": "x"})


def test_a_body_that_is_not_a_json_object_matches_nothing() -> None:
    policy = {"test": [{"exists": False}]}
    assert accepts_body(policy, {"other": 1})
    for body in (b"Regular string message", b'"Regular string message"', b"[1, 2]", b"", b"\xff"):
        assert not accepts_body(policy, body)


def test_an_absent_attribute_fails_null_and_anything_but_recorded_against_sns() -> None:
    policy = {"attr1": [None, {"anything-but": "whatever"}]}
    assert not accepts(policy, {})
    assert accepts(policy, {"attr1": "something"})
    assert not accepts(policy, {"attr1": "whatever"})
    ranged = {"attr1": [{"numeric": [">", 0, "<=", 100]}]}
    assert accepts(ranged, {"attr1": number("99")})
    assert not accepts(ranged, {"attr1": number("111")})


@pytest.mark.parametrize("text", ["", "   ", "{}", " { } "])
@pytest.mark.parametrize("scope", list(FilterPolicyScope))
def test_an_empty_policy_is_no_filter(text: str, scope: FilterPolicyScope) -> None:
    policy = parse_filter_policy(text, scope.value)
    assert policy.matches_everything
    assert policy.scope is scope
    assert policy.matches({}, b"not json at all")


def test_a_policy_keeps_its_text_and_scope_and_compares_by_them() -> None:
    text = '{"store": ["example_corp"]}'
    policy = parse_filter_policy(text, "MessageBody")
    assert (policy.text, policy.scope) == (text, FilterPolicyScope.MESSAGE_BODY)
    assert policy == parse_filter_policy(text, "MessageBody")
    assert policy != parse_filter_policy(text)
    assert parse_filter_policy(text).scope is FilterPolicyScope.MESSAGE_ATTRIBUTES
    assert json.loads(policy.text) == {"store": ["example_corp"]}
