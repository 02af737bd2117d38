"""A compiled filter policy, and how a message is matched against it.

`gateway/core/filter_policies.py` reads a policy's JSON once into these frozen objects;
matching a message then only walks them, and never reads the policy's JSON again:

    Node   one JSON object of the policy: its keys (`children`), each `$or` in it (one
           of the `alternatives` must hold), and, when the object is the value of a key
           with an array, that array compiled into a `Leaf`
    Leaf   one key's array: exact values kept in sets, the operators as `Condition`s,
           and whether `{"exists": true}` / `{"exists": false}` is among them

What a message offers at a key is a JSON value: in MessageBody scope the parsed body
itself; in MessageAttributes scope each attribute as the value SNS makes of it (String
-> a string, Number -> a number, String.Array -> the array its JSON holds, Binary ->
nothing: SNS leaves binary attributes out of filtering).

A key's array holds when any scalar at the key meets any of its conditions; an array in
the message offers each of its elements (nested arrays flattened). Keys are ANDed. Where
the policy goes on into objects inside an array, one element must satisfy everything the
policy asks below that point (the "array consistency" of AWS's event-ruler engine, which
SNS filtering is built on): `{"a": {"b": [1], "c": [2]}}` does not match
`{"a": [{"b": 1}, {"c": 2}]}`.

Numbers compare as numbers, at SNS's precision of five decimal places (a `Decimal`
quantized to 1e-5): 301.5 equals 3.015e2, and "301.5" (a string) equals neither. Strings,
numbers, booleans and null are different types and never equal one another.
"""

from __future__ import annotations

import enum
import ipaddress
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Context, Decimal, InvalidOperation
from typing import Protocol, TypeAlias

import orjson

from storage_nodes.node import MessageAttribute

Scalar: TypeAlias = str | bool | Decimal | None  # a message's value as conditions see it
IpNetwork: TypeAlias = ipaddress.IPv4Network | ipaddress.IPv6Network
IpAddress: TypeAlias = ipaddress.IPv4Address | ipaddress.IPv6Address

_STEP = Decimal("1e-5")  # SNS: "five digits of accuracy after the decimal point"
# Wide enough to quantize any JSON double or SNS Number (at most 10^126) exactly.
_DECIMALS = Context(prec=400, rounding=ROUND_HALF_EVEN)
_INTEGRAL_FROM_EXPONENT = 300  # past 10^300 a number has no fifth decimal to round


class Absent(enum.Enum):
    """A key the message does not have (distinct from JSON null, which is a value)."""

    ABSENT = 0


ABSENT = Absent.ABSENT


def canonical_number(value: Decimal) -> Decimal | None:
    """`value` rounded to five decimal places; None for NaN and infinities."""
    if not value.is_finite():
        return None
    if value.adjusted() >= _INTEGRAL_FROM_EXPONENT:
        return value  # quantizing would need hundreds of digits for nothing
    return value.quantize(_STEP, context=_DECIMALS)


def json_number(value: int | float) -> Decimal | None:
    """A number of parsed JSON (never a bool), as conditions compare it."""
    # repr gives the shortest text that reads back as the same double: 0.1 stays 0.1.
    return canonical_number(Decimal(value if isinstance(value, int) else repr(value)))


def parse_ip(text: str) -> IpAddress | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


class Condition(Protocol):
    """One operator of a key's array (`prefix`, `numeric`, ...), on one scalar."""

    def holds(self, value: Scalar) -> bool: ...


@dataclass(frozen=True, slots=True)
class Prefix:
    prefix: str

    def holds(self, value: Scalar) -> bool:
        return isinstance(value, str) and value.startswith(self.prefix)


@dataclass(frozen=True, slots=True)
class Suffix:
    suffix: str

    def holds(self, value: Scalar) -> bool:
        return isinstance(value, str) and value.endswith(self.suffix)


@dataclass(frozen=True, slots=True)
class EqualsIgnoreCase:
    lowered: str

    def holds(self, value: Scalar) -> bool:
        return isinstance(value, str) and value.lower() == self.lowered


@dataclass(frozen=True, slots=True)
class AnythingBut:
    """Any value but the listed strings or numbers (of another type too: `true` is
    anything but "a", as in event-ruler)."""

    strings: frozenset[str]
    numbers: frozenset[Decimal]

    def holds(self, value: Scalar) -> bool:
        if isinstance(value, str):
            return value not in self.strings
        if isinstance(value, Decimal):
            return value not in self.numbers
        return True


@dataclass(frozen=True, slots=True)
class AnythingButPrefix:
    prefix: str

    def holds(self, value: Scalar) -> bool:
        return not (isinstance(value, str) and value.startswith(self.prefix))


@dataclass(frozen=True, slots=True)
class NumericRange:
    """`numeric` with `=`, one bound, or a lower and an upper bound (None: unbounded)."""

    lower: Decimal | None
    lower_inclusive: bool
    upper: Decimal | None
    upper_inclusive: bool

    def holds(self, value: Scalar) -> bool:
        if not isinstance(value, Decimal):
            return False
        lower, upper = self.lower, self.upper
        if lower is not None and (value < lower or (value == lower and not self.lower_inclusive)):
            return False
        return upper is None or value < upper or (value == upper and self.upper_inclusive)


@dataclass(frozen=True, slots=True)
class Cidr:
    network: IpNetwork

    def holds(self, value: Scalar) -> bool:
        if not isinstance(value, str):
            return False
        address = parse_ip(value)
        return address is not None and address in self.network


@dataclass(frozen=True, slots=True)
class SameIp:
    """An exact value that is an IP address also matches other spellings of that address
    (event-ruler compares IP literals as addresses: "::1" is "0:0:0:0:0:0:0:1")."""

    address: IpAddress

    def holds(self, value: Scalar) -> bool:
        return isinstance(value, str) and parse_ip(value) == self.address


@dataclass(frozen=True, slots=True)
class Leaf:
    """One key's array of values: it holds when any scalar at the key meets any of them;
    with no scalar at the key, only `{"exists": false}` holds."""

    strings: frozenset[str]
    numbers: frozenset[Decimal]
    constants: frozenset[bool | None]  # true, false, null
    conditions: tuple[Condition, ...]
    exists: bool  # {"exists": true} is among the values
    absent: bool  # {"exists": false} is among the values
    depth: int  # how deep the key is nested in the policy's JSON (top level: 1)
    value_count: int  # how many values the array holds (the policy's complexity counts them)

    def holds(self, raw: list[object]) -> bool:
        if not raw:
            return self.absent
        return self.exists or any(self._holds_for(scalar(item)) for item in raw)

    def _holds_for(self, value: Scalar) -> bool:
        # Types first: True == 1 == Decimal(1) in Python, never in a filter policy.
        if isinstance(value, str):
            exact = value in self.strings
        elif isinstance(value, Decimal):
            exact = value in self.numbers
        else:
            exact = value in self.constants
        return exact or any(condition.holds(value) for condition in self.conditions)


@dataclass(frozen=True, slots=True)
class Node:
    """One JSON object of the policy (or one `$or` branch), compiled."""

    leaf: Leaf | None
    children: tuple[tuple[str, Node], ...]
    alternatives: tuple[tuple[Node, ...], ...]

    @property
    def goes_deeper(self) -> bool:
        return bool(self.children or self.alternatives)


def scalar(item: object) -> Scalar:
    """A scalar of parsed JSON (or an attribute's value) as conditions compare it."""
    if isinstance(item, bool) or item is None or isinstance(item, str | Decimal):
        return item
    if isinstance(item, int | float):
        return json_number(item)
    raise TypeError(f"not a JSON scalar: {item!r}")


def _elements(value: object) -> Iterator[object]:
    """The elements of an array and of the arrays in it (iteratively: a body may nest
    arrays a thousand deep)."""
    stack = [iter(value)] if isinstance(value, list) else []
    while stack:
        for item in stack[-1]:
            if isinstance(item, list):
                stack.append(iter(item))
                break
            yield item
        else:
            stack.pop()


def _scalars(value: object) -> list[object]:
    if value is ABSENT or isinstance(value, dict):
        return []
    if isinstance(value, list):
        return [item for item in _elements(value) if not isinstance(item, dict)]
    return [value]


def _objects(value: object) -> list[dict[str, object]]:
    if isinstance(value, dict):
        return [value]
    if isinstance(value, list):
        return [item for item in _elements(value) if isinstance(item, dict)]
    return []


def match_object(node: Node, obj: Mapping[str, object] | None, *, dotted: bool) -> bool:
    """Whether the object `obj` (None: nothing there) satisfies `node`. With `dotted`
    (MessageBody scope), `{"a.b": 1}` in the message is the same as `{"a": {"b": 1}}`, as
    SNS matches it."""
    return _match_fields(node, _prepared(obj, dotted), dotted)


def _prepared(obj: Mapping[str, object] | None, dotted: bool) -> Mapping[str, object] | None:
    if obj is not None and dotted and any("." in key for key in obj):
        return _undotted(obj)
    return obj


# Loops rather than any()/all() over generators below: each generator is one more frame
# per level of the policy, and the recursion goes as deep as the policy (150 at most).
def _match_fields(node: Node, obj: Mapping[str, object] | None, dotted: bool) -> bool:
    for name, child in node.children:
        value = ABSENT if obj is None else obj.get(name, ABSENT)
        if not _match_value(child, value, dotted):
            return False
    for branches in node.alternatives:
        for branch in branches:
            if _match_fields(branch, obj, dotted):
                break
        else:
            return False
    return True


def _match_value(node: Node, value: object, dotted: bool) -> bool:
    if node.leaf is not None and not node.leaf.holds(_scalars(value)):
        return False
    if not node.goes_deeper:
        return True
    objects = _objects(value)
    if not objects:
        return _match_fields(node, None, dotted)
    # Array consistency: one element carries everything asked below this key.
    for item in objects:  # noqa: SIM110 (a loop: see above)
        if _match_fields(node, _prepared(item, dotted), dotted):
            return True
    return False


def _undotted(obj: Mapping[str, object]) -> dict[str, object]:
    """`obj` with its dotted keys spelled as nested objects, merged with the nested ones."""
    result: dict[str, object] = {}
    for key, value in obj.items():
        first, *rest = key.split(".")
        nested = value
        for segment in reversed(rest):
            nested = {segment: nested}
        result[first] = _merged(result[first], nested) if first in result else nested
    return result


def _merged(old: object, new: object) -> object:
    if isinstance(old, dict) and isinstance(new, dict):
        merged = dict(old)
        for key, value in new.items():
            merged[key] = _merged(merged[key], value) if key in merged else value
        return merged
    # One path given twice, not both as objects ({"a.b": 1, "a": {"b": 2}}): both values
    # are offered, as an array's elements are.
    return [old, new]


def match_body(root: Node, body: bytes) -> bool:
    """MessageBody scope: a body that is not a JSON object matches nothing, as in SNS."""
    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError:
        return False
    return isinstance(document, dict) and match_object(root, document, dotted=True)


def match_attributes(
    root: Node, names: frozenset[str], attributes: Mapping[str, MessageAttribute]
) -> bool:
    """MessageAttributes scope: only the attributes the policy names are converted."""
    values: dict[str, object] = {}
    for name in names:
        attribute = attributes.get(name)
        if attribute is not None:
            value = attribute_value(attribute)
            if value is not ABSENT:
                values[name] = value
    return match_object(root, values, dotted=False)


def attribute_value(attribute: MessageAttribute) -> object:
    """What SNS filters on for an attribute: String -> its text, Number -> the number,
    String.Array -> the array its JSON holds; Binary (or a value that does not parse as
    its type says) -> ABSENT."""
    data_type, text = attribute.data_type, attribute.string_value
    if text is None or data_type.startswith("Binary"):
        return ABSENT
    if data_type == "String.Array":
        try:
            items = orjson.loads(text)
        except orjson.JSONDecodeError:
            return ABSENT
        return items if isinstance(items, list) else ABSENT
    if data_type.startswith("Number"):
        try:
            number = canonical_number(Decimal(text))
        except InvalidOperation:
            return ABSENT
        return ABSENT if number is None else number
    return text
