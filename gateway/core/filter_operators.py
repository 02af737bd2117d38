"""One key's array of a filter policy: its values and operator objects, read and checked.

    read_leaf(values, depth) -> Leaf          raises FilterPolicyError

The values are strings, numbers, true, false, null, and objects of one operator each:

    {"prefix": "s"}  {"suffix": "s"}  {"equals-ignore-case": "s"}
    {"anything-but": "s" | n | ["s", ...] | [n, ...] | {"prefix": "s"}}
    {"numeric": ["=", n]}  {"numeric": [">" | ">=", n]}  {"numeric": ["<" | "<=", n]}
    {"numeric": [">" | ">=", n, "<" | "<=", m]}   with n < m
    {"exists": true | false}  {"cidr": "10.0.0.0/24"}

The checks and their wording are SNS's, which are those of AWS's event-ruler engine,
quirks included (a cidr that is not a string is refused with prefix's words; an
anything-but object with a second key with numeric's).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Final

import orjson

from gateway.core.errors import FilterPolicyError
from gateway.core.filter_matchers import (
    AnythingBut,
    AnythingButPrefix,
    Cidr,
    Condition,
    EqualsIgnoreCase,
    Leaf,
    NumericRange,
    Prefix,
    SameIp,
    Suffix,
    json_number,
    parse_ip,
)

_JAVA_INT = re.compile(r"[+-]?[0-9]+")  # what Java's Integer.parseInt takes
_JAVA_INT_MAX = 2**31 - 1


def read_leaf(values: list[object], depth: int) -> Leaf:
    """A key's array of values (at `depth` in the policy), read in document order."""
    strings: set[str] = set()
    numbers: set[Decimal] = set()
    constants: set[bool | None] = set()
    conditions: list[Condition] = []
    exists = absent = False
    for value in values:
        if isinstance(value, dict):
            operator = _match_expression(value)
            if operator is True:
                exists = True
            elif operator is False:
                absent = True
            else:
                conditions.append(operator)
        elif isinstance(value, str):
            strings.add(value)
            address = parse_ip(value)
            if address is not None:
                conditions.append(SameIp(address))
        elif isinstance(value, bool) or value is None:
            constants.add(value)
        elif isinstance(value, int | float):
            number = json_number(value)
            if number is not None:
                numbers.add(number)
        else:
            raise FilterPolicyError("Match value must be String, number, true, false, or null")
    if not values:
        raise FilterPolicyError("Empty arrays are not allowed")
    return Leaf(
        frozenset(strings),
        frozenset(numbers),
        frozenset(constants),
        tuple(conditions),
        exists,
        absent,
        depth,
        len(values),
    )


def _match_expression(expression: dict[str, object]) -> Condition | bool:
    """One operator object of a key's array; True / False stand for `exists`."""
    if not expression:
        raise FilterPolicyError("Match expression name not found")
    name, operand = next(iter(expression.items()))
    read = _OPERATOR_READERS.get(name)
    if read is None:
        raise FilterPolicyError(f"Unrecognized match type {name}")
    return read(name, operand, len(expression) == 1)


def _one_key(only_one: bool) -> None:
    if not only_one:
        raise FilterPolicyError("Only one key allowed in match expression")


def _string_operator(name: str, operand: object, only_one: bool) -> Condition:
    if not isinstance(operand, str):
        raise FilterPolicyError(f"{name} match pattern must be a string")
    _one_key(only_one)
    if name == "prefix":
        return Prefix(operand)
    return Suffix(operand) if name == "suffix" else EqualsIgnoreCase(operand.lower())


def _numeric_operator(name: str, operand: object, only_one: bool) -> Condition:
    if not isinstance(operand, list):
        raise FilterPolicyError("Value of numeric must be an array.")
    condition = _numeric(operand)
    if not only_one:
        raise FilterPolicyError("Too many elements in numeric expression")
    return condition


def _exists_operator(name: str, operand: object, only_one: bool) -> bool:
    if not isinstance(operand, bool):
        raise FilterPolicyError("exists match pattern must be either true or false.")
    _one_key(only_one)
    return operand


def _cidr_operator(name: str, operand: object, only_one: bool) -> Condition:
    if not isinstance(operand, str):  # sic: SNS names prefix here
        raise FilterPolicyError("prefix match pattern must be a string")
    network = _cidr(operand)
    _one_key(only_one)
    return Cidr(network)


def _anything_but_operator(name: str, operand: object, only_one: bool) -> Condition:
    if isinstance(operand, dict):
        return _anything_but_prefix(operand, only_one)
    if isinstance(operand, list):
        condition = _anything_but_values(operand)
    elif isinstance(operand, str) or _is_number(operand):
        condition = _anything_but_values([operand])
    else:
        raise FilterPolicyError(
            "Value of anything-but must be an array or single string/number value."
        )
    if not only_one:  # sic: SNS's wording for an anything-but object with more keys
        raise FilterPolicyError("Too many elements in numeric expression")
    return condition


def _anything_but_prefix(operand: dict[str, object], only_one: bool) -> Condition:
    if not operand:
        raise FilterPolicyError("Anything-But expression name not found")
    name, prefix = next(iter(operand.items()))
    # SNS takes only a prefix here (not suffix, nor equals-ignore-case).
    if name != "prefix":
        raise FilterPolicyError(f"Unsupported anything-but pattern: {name}")
    if not isinstance(prefix, str):
        raise FilterPolicyError("prefix match pattern must be a string")
    if not prefix:
        raise FilterPolicyError("Null prefix not allowed")
    _one_key(len(operand) == 1 and only_one)
    return AnythingButPrefix(prefix)


def _anything_but_values(listed: list[object]) -> Condition:
    strings: set[str] = set()
    numbers: set[Decimal] = set()
    for value in listed:
        if isinstance(value, str):
            strings.add(value)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            numbers.add(_number(value))
        else:
            raise FilterPolicyError(
                "Inside anything but list, start|null|boolean is not supported."
            )
    if bool(strings) == bool(numbers):
        raise FilterPolicyError(
            "Inside anything but list, either all values are number or string, "
            "mixed type is not supported"
        )
    return AnythingBut(frozenset(strings), frozenset(numbers))


_OPERATOR_READERS: Final[dict[str, Callable[[str, object, bool], Condition | bool]]] = {
    "prefix": _string_operator,
    "suffix": _string_operator,
    "equals-ignore-case": _string_operator,
    "numeric": _numeric_operator,
    "anything-but": _anything_but_operator,
    "exists": _exists_operator,
    "cidr": _cidr_operator,
}


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _number(value: int | float) -> Decimal:
    number = json_number(value)
    assert number is not None  # orjson reads no NaN nor infinity
    return number


def _token(values: list[object], index: int) -> str:
    """How SNS's JSON parser shows the token at `index` in an error ("]" past the end)."""
    if index >= len(values):
        return "]"
    value = values[index]
    if isinstance(value, str):
        return value
    if isinstance(value, list | dict):
        return "[" if isinstance(value, list) else "{"
    return orjson.dumps(value).decode()


def _operand(values: list[object], index: int, operator: str) -> Decimal:
    value = values[index] if index < len(values) else None
    if not isinstance(value, int | float) or isinstance(value, bool):  # _is_number, for mypy
        name = "equals" if operator == "=" else operator
        raise FilterPolicyError(f"Value of {name} must be numeric")
    return _number(value)


def _numeric(values: list[object]) -> NumericRange:
    """`{"numeric": [...]}`: "=" n; "<"/"<=" n; ">"/">=" n, optionally then "<"/"<=" m."""
    operator = values[0] if values else None
    if not isinstance(operator, str):
        raise FilterPolicyError(f"Invalid member in numeric match: {_token(values, 0)}")
    if operator not in ("=", "<", "<=", ">", ">="):
        raise FilterPolicyError(f"Unrecognized numeric range operator: {operator}")
    bound = _operand(values, 1, operator)
    if operator in ("=", "<", "<="):
        if len(values) > 2:
            raise FilterPolicyError("Too many elements in numeric expression")
        if operator == "=":
            return NumericRange(bound, True, bound, True)
        return NumericRange(None, False, bound, operator == "<=")
    if len(values) == 2:
        return NumericRange(bound, operator == ">=", None, False)
    upper_operator = values[2]
    if not isinstance(upper_operator, str):
        raise FilterPolicyError(f"Bad value in numeric range: {_token(values, 2)}")
    if upper_operator not in ("<", "<="):
        raise FilterPolicyError(f"Bad numeric range operator: {upper_operator}")
    upper = _operand(values, 3, upper_operator)
    if len(values) > 4:
        raise FilterPolicyError("Too many terms in numeric range expression")
    if bound >= upper:
        raise FilterPolicyError("Bottom must be less than top")
    return NumericRange(bound, operator == ">=", upper, upper_operator == "<=")


def _cidr(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    """`{"cidr": "10.0.0.0/24"}`, checked with SNS's (event-ruler's) rules and words; the
    range is the whole network, whatever host bits the address is written with."""
    parts = text.split("/")
    if len(parts) != 2:
        raise FilterPolicyError("Malformed CIDR, one '/' required")
    address_text, mask_text = parts
    mask_bits = int(mask_text) if _JAVA_INT.fullmatch(mask_text) else None
    if mask_bits is None or abs(mask_bits) > _JAVA_INT_MAX:
        raise FilterPolicyError("Malformed CIDR, mask bits must be an integer")
    if mask_bits < 0:
        raise FilterPolicyError("Malformed CIDR, mask bits must not be negative")
    address = parse_ip(address_text)
    if address is None:
        raise FilterPolicyError(f"Nonstandard IP address: {address_text}")
    if address.version == 4 and mask_bits > 31:
        raise FilterPolicyError("IPv4 mask bits must be < 32")
    if address.version == 6 and mask_bits > 127:
        raise FilterPolicyError("IPv6 mask bits must be < 128")
    return ipaddress.ip_network((address, mask_bits), strict=False)


# The names SNS reserves (a `$or` whose objects use one as a key is an ordinary key):
# its operators, and event-ruler's wildcard, which SNS does not take.
OPERATOR_NAMES: Final = frozenset(_OPERATOR_READERS) | {"wildcard"}
